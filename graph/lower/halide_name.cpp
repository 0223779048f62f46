#include "halide_name.h"

#include <cctype>

namespace tessera::graph {

std::string halide_name(const std::string &name) {
    std::string out;
    for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    // Runs of '_' collapse ("/layer1/conv" -> "_layer1_conv"), then strip the leading ones.
    std::string collapsed;
    for (char c : out) {
        if (c == '_' && !collapsed.empty() && collapsed.back() == '_') continue;
        collapsed += c;
    }
    while (!collapsed.empty() && collapsed.front() == '_') collapsed.erase(collapsed.begin());
    if (collapsed.empty() || std::isdigit(static_cast<unsigned char>(collapsed.front()))) collapsed = "v" + collapsed;
    return collapsed;
}

}  // namespace tessera::graph
