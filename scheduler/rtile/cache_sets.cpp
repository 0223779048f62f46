#include "cache_sets.h"

#include <algorithm>

namespace tessera::rtile {

namespace {

// The distinct lines of `box`, sorted; empty when it has more than max_pieces pieces.
std::vector<int64_t> lines_of(const StridedBox &box, int64_t line, int64_t max_pieces) {
    std::vector<int64_t> out;
    if (box.extents.empty() || box.extents.size() != box.strides.size()) return out;
    int64_t pieces = 1;
    for (size_t d = 1; d < box.extents.size(); d++) {
        pieces *= std::max<int64_t>(1, box.extents[d]);
        if (pieces > max_pieces) return out;
    }
    // Each piece is the innermost dim's run from a start the outer indices give.
    const int64_t run = (std::max<int64_t>(1, box.extents[0]) - 1) * box.strides[0] + 1;
    std::vector<int64_t> index(box.extents.size(), 0);
    for (int64_t piece = 0; piece < pieces; piece++) {
        int64_t start = 0;
        for (size_t d = 1; d < index.size(); d++) start += index[d] * box.strides[d];
        for (int64_t l = start / line; l <= (start + run - 1) / line; l++) out.push_back(l);
        for (size_t d = 1; d < index.size(); d++) {  // the next piece, odometer-wise
            if (++index[d] < box.extents[d]) break;
            index[d] = 0;
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

int64_t set_of(int64_t line, int64_t sets) {
    return ((line % sets) + sets) % sets;
}

}  // namespace

std::vector<SetOccupancy> set_occupancy(const std::vector<StridedBox> &boxes, int64_t line, int64_t sets,
                                        int64_t ways, int64_t max_pieces) {
    std::vector<SetOccupancy> out(boxes.size());
    if (line <= 0 || sets <= 0 || ways <= 0) return out;
    std::vector<std::vector<int64_t>> lines;
    std::vector<int64_t> per_set(size_t(sets), 0);
    for (size_t b = 0; b < boxes.size(); b++) {
        lines.push_back(lines_of(boxes[b], line, max_pieces));
        // Each box starts `b` lines on, so that separate allocations do not all
        // begin in set 0.
        for (int64_t l : lines.back()) per_set[size_t(set_of(l + int64_t(b), sets))]++;
    }
    for (size_t b = 0; b < boxes.size(); b++) {
        out[b].lines = int64_t(lines[b].size());
        for (int64_t l : lines[b]) out[b].in_overfull_sets += per_set[size_t(set_of(l + int64_t(b), sets))] > ways;
    }
    return out;
}

}  // namespace tessera::rtile
