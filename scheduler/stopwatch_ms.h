// Monotonic milliseconds, for the scheduling time TESSERA_EXPLAIN reports.
#pragma once

#include <chrono>

namespace tessera {

inline double now_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace tessera
