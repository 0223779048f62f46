// The --layout values of `tessera compile` / `tessera run` and `tessera-bench --model`
// (apps/model/opened_model.h says what each does). Header-only: tessera-bench checks
// the value even where it is built without the model tools.
#pragma once

#include <string>

namespace tessera {

// Empty when `value` is a --layout value, else the message naming it.
inline std::string layout_option_error(const std::string &value) {
    for (const char *v : {"auto", "chosen", "measured", "blocked", "nchwc", "nhwc", "packed", "fixed"}) {
        if (value == v) return "";
    }
    return "--layout takes auto, chosen, measured, blocked, nchwc, nhwc, packed or fixed, got '" + value + "'";
}

}  // namespace tessera
