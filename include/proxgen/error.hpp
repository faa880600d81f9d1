// proxgen::Error — the one exception type ProxGen throws for problems the user must fix at run
// time (mismatched sizes, NaN/Inf in data, unreadable files, divergence). Internal invariants use
// PROXGEN_INTERNAL_ASSERT, which names itself a ProxGen bug, so the two kinds never mix.
#pragma once

#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace proxgen {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Memory that could not be allocated (an image, a solver's state): the message says for what and
/// how many bytes were asked for. A proxgen::Error, so callers that catch Error see it too.
class OutOfMemory : public Error {
public:
    using Error::Error;
};

/// Throws proxgen::Error with an fmt-formatted message.
template <class... Args>
[[noreturn]] void fail(fmt::format_string<Args...> f, Args&&... args) {
    throw Error(fmt::format(f, std::forward<Args>(args)...));
}

namespace detail {
[[noreturn]] inline void internal_error(const char* cond, const char* file, int line) {
    throw std::logic_error(fmt::format("ProxGen internal error (a bug, please report): '{}' at {}:{}",
                                       cond, file, line));
}
}  // namespace detail

}  // namespace proxgen

#define PROXGEN_INTERNAL_ASSERT(cond) \
    ((cond) ? void(0) : ::proxgen::detail::internal_error(#cond, __FILE__, __LINE__))
