// A strict little JSON reader for the tests (no JSON library is packaged):
// enough to prove a stats file parses and to read its values.
#pragma once

#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace minijson {

struct Value {
    enum Type { Null, Bool, Number, String, Array, Object } type = Null;
    bool b = false;
    double n = 0;
    std::string s;
    std::vector<Value> a;
    std::map<std::string, Value> o;
    const Value& operator[](const std::string& key) const {
        static const Value none;
        auto it = o.find(key);
        return it == o.end() ? none : it->second;
    }
    bool has(const std::string& key) const { return o.count(key) != 0; }
};

class Parser {
public:
    explicit Parser(const std::string& text) : t_(text) {}
    // False (with error()) on any syntax error or trailing garbage.
    bool parse(Value& out) {
        if (!value(out)) return false;
        ws();
        if (i_ != t_.size()) return err("trailing characters");
        return true;
    }
    const std::string& error() const { return error_; }

private:
    bool err(const std::string& m) {
        if (error_.empty()) error_ = m + " at offset " + std::to_string(i_);
        return false;
    }
    void ws() {
        while (i_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[i_]))) ++i_;
    }
    bool lit(const char* w) {
        const std::string word(w);
        if (t_.compare(i_, word.size(), word) != 0) return err("expected " + word);
        i_ += word.size();
        return true;
    }
    bool str(std::string& out) {
        if (t_[i_] != '"') return err("expected string");
        ++i_;
        while (i_ < t_.size() && t_[i_] != '"') {
            if (t_[i_] == '\\') {
                if (++i_ >= t_.size()) return err("bad escape");
                const char c = t_[i_];
                if (c == 'u') {
                    if (i_ + 4 >= t_.size()) return err("bad \\u");
                    out += char(std::strtol(t_.substr(i_ + 1, 4).c_str(), nullptr, 16));
                    i_ += 4;
                } else
                    out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
            } else if (static_cast<unsigned char>(t_[i_]) < 0x20)
                return err("control character in string");
            else
                out += t_[i_];
            ++i_;
        }
        if (i_ >= t_.size()) return err("unterminated string");
        ++i_;
        return true;
    }
    bool value(Value& v) {
        ws();
        if (i_ >= t_.size()) return err("unexpected end");
        const char c = t_[i_];
        if (c == '{') {
            v.type = Value::Object;
            ++i_;
            ws();
            if (t_[i_] == '}') return ++i_, true;
            for (;;) {
                ws();
                std::string key;
                if (!str(key)) return false;
                ws();
                if (t_[i_] != ':') return err("expected ':'");
                ++i_;
                if (!value(v.o[key])) return false;
                ws();
                if (t_[i_] == ',') {
                    ++i_;
                    continue;
                }
                if (t_[i_] == '}') return ++i_, true;
                return err("expected ',' or '}'");
            }
        }
        if (c == '[') {
            v.type = Value::Array;
            ++i_;
            ws();
            if (t_[i_] == ']') return ++i_, true;
            for (;;) {
                v.a.emplace_back();
                if (!value(v.a.back())) return false;
                ws();
                if (t_[i_] == ',') {
                    ++i_;
                    continue;
                }
                if (t_[i_] == ']') return ++i_, true;
                return err("expected ',' or ']'");
            }
        }
        if (c == '"') {
            v.type = Value::String;
            return str(v.s);
        }
        if (c == 't') return v.type = Value::Bool, v.b = true, lit("true");
        if (c == 'f') return v.type = Value::Bool, v.b = false, lit("false");
        if (c == 'n') return v.type = Value::Null, lit("null");
        char* end = nullptr;
        v.n = std::strtod(t_.c_str() + i_, &end);
        if (end == t_.c_str() + i_) return err("unexpected character");
        v.type = Value::Number;
        i_ = size_t(end - t_.c_str());
        return true;
    }
    const std::string t_;
    size_t i_ = 0;
    std::string error_;
};

} // namespace minijson
