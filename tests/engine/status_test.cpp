// value() of a failed Result is a programming error; a host that makes it
// still learns why: the code and the message reach stderr before the abort,
// in every build type.
#include <gtest/gtest.h>

#include <memory>

#include "pyramarch/engine/status.h"

using namespace pyramarch;

namespace {
Result<std::unique_ptr<int>> failing() {
    return Status::error(ErrorCode::Unsupported, "adopted device lacks dynamicRendering");
}
} // namespace

TEST(StatusDeathTest, ValueOfAFailedResultPrintsTheMessage) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH((void)failing().value(),
                 "value\\(\\) of a failed Result: Unsupported: adopted device lacks dynamicRendering");
    auto r = failing();
    EXPECT_DEATH((void)*r, "Unsupported: adopted device lacks dynamicRendering");
}

TEST(Status, ValueOfASuccessfulResult) {
    Result<std::unique_ptr<int>> r(std::make_unique<int>(7));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r.value(), 7);
    EXPECT_EQ(**std::move(r), 7);
}
