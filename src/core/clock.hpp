// Seconds of wall time since a point (build, model and tuning times reported to users).
#pragma once
#include <chrono>

namespace psv {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace psv
