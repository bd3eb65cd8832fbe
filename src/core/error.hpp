// The one way errors travel inside psv: a psv::Error carrying a status and a message, thrown by
// the C++ core and caught by the C shims (src/api), never across the ABI.
#pragma once
#include <cstdarg>
#include <cstdio>
#include <exception>
#include <string>

#include "psv/psv.h"

namespace psv {

class Error : public std::exception {
public:
    Error(psv_status status, std::string message) : status_(status), message_(std::move(message)) {}
    psv_status status() const noexcept { return status_; }
    const char *what() const noexcept override { return message_.c_str(); }

private:
    psv_status status_;
    std::string message_;
};

// printf-style formatting for error messages.
inline std::string format(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
inline std::string format(const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf;
}

[[noreturn]] inline void fail(psv_status status, std::string message) {
    throw Error(status, std::move(message));
}

}  // namespace psv
