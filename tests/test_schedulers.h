// The scheduler axis of the correctness matrix: every operator case runs under
// each of these. Add a scheduler here and every op is tested with it. Two schedulers
// that tile differently check each definition against its reference; the unscheduled
// form adds no check beyond theirs and ran slowest, so it is not in the matrix.
#pragma once

#include <string>
#include <vector>

namespace tessera::test {

inline const std::vector<std::string> &test_schedulers() {
    static const std::vector<std::string> schedulers = {"Tessera", "Mullapudi2016"};
    return schedulers;
}

}  // namespace tessera::test
