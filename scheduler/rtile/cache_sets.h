// Set conflicts in a set-associative cache: how many of the lines a tile's data
// occupy land in sets that hold more of them than the cache has ways.
//
// x86 L1 data caches are indexed by address bits inside a 4 KiB page (sets x
// line = 4 KiB: 32 KiB 8-way, 48 KiB 12-way), so lines a multiple of 4 KiB apart
// share a set. A register tile that broadcasts one float from each of 16 weight
// panels 16 KiB apart (a 1x1 convolution's packed panels of 32 output channels
// over 128 input channels) keeps 16 lines in each set it touches; with 12 ways
// they evict each other before the next register tile reuses them, and every
// broadcast comes from the L2 (128 -> 512 channels at 28x28 on Zen 5: 1.09 ms,
// where the tile of 8 channels inside one panel ran 0.29).
#pragma once

#include <cstdint>
#include <vector>

namespace tessera::rtile {

// Bytes of address an x86 L1 data cache indexes its sets by (one page).
constexpr int64_t kL1IndexBytes = 4096;

// A data tile in memory: per storage dim, innermost first, its extent and the
// stride between consecutive indices (elements).
struct StridedBox {
    std::vector<int64_t> extents, strides;
};

struct SetOccupancy {
    int64_t lines = 0;            // distinct lines the box occupies
    int64_t in_overfull_sets = 0;  // of them, lines in sets holding more than `ways` lines
};

// The occupancy of each box when all of them are resident together in a cache of
// `sets` sets of `ways` lines of `line` elements. Each box is counted from element 0
// of its own allocation, the i-th taken to start i lines past a set boundary
// (separate allocations do not all begin in one set). A box of more than `max_pieces` contiguous pieces is not counted (its
// entry stays zero): such a tile is far past an L1 anyway.
std::vector<SetOccupancy> set_occupancy(const std::vector<StridedBox> &boxes, int64_t line, int64_t sets,
                                        int64_t ways, int64_t max_pieces = 1 << 16);

}  // namespace tessera::rtile
