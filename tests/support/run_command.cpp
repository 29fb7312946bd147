#include "support/run_command.h"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sys/wait.h>
#include <unistd.h>

namespace pyramarch::test {

CommandResult runCommand(const std::string& program, const std::string& args) {
    static std::atomic<int> counter{0};
    const std::string base = (std::filesystem::temp_directory_path() /
                              ("pyramarch-cmd-" + std::to_string(::getpid()) + "-" + std::to_string(counter++)))
                                 .string();
    const std::string cmd = program + " " + args + " >" + base + ".out 2>" + base + ".err";
    const int status = std::system(cmd.c_str());
    auto slurp = [](const std::string& p) {
        std::ifstream f(p);
        return std::string(std::istreambuf_iterator<char>(f), {});
    };
    CommandResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(base + ".out");
    r.err = slurp(base + ".err");
    std::filesystem::remove(base + ".out");
    std::filesystem::remove(base + ".err");
    return r;
}

} // namespace pyramarch::test
