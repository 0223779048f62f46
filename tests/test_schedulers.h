// The scheduler axis of the correctness matrix: every operator case runs under
// each of these. Add a scheduler here and every op is tested with it.
#pragma once

#include <string>
#include <vector>

namespace tessera::test {

inline const std::vector<std::string> &test_schedulers() {
    static const std::vector<std::string> schedulers = {"none", "Tessera", "Mullapudi2016"};
    return schedulers;
}

}  // namespace tessera::test
