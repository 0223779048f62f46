#include "attached_region.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

namespace tessera::rules {

using namespace Halide::Internal;

namespace {

// Whether a split of `d` rounds a loop up past its var's extent (RoundUp, which is
// also what Auto means for an update's pure vars, with a factor that does not
// divide the extent, or an extent not known here). `extents`: the pure vars'.
bool rounds_past(const Definition &d, bool update, std::map<std::string, int64_t> extents) {
    for (const Split &s : d.schedule().splits()) {
        if (s.is_fuse()) {
            const int64_t a = extents.count(s.outer) ? extents[s.outer] : 0;
            const int64_t b = extents.count(s.inner) ? extents[s.inner] : 0;
            if (a && b) extents[s.old_var] = a * b;
            continue;
        }
        const int64_t e = extents.count(s.old_var) ? extents[s.old_var] : 0;
        if (!s.is_split()) {
            if (e) extents[s.outer] = e;
            continue;
        }
        const int64_t *f = Halide::Internal::as_const_int(s.factor);
        const bool round_up = s.tail == Halide::TailStrategy::RoundUp ||
                              (update && s.tail == Halide::TailStrategy::Auto && !s.exact);
        if (round_up && (!f || !e || e % *f != 0)) return true;
        if (f && e) {
            extents[s.inner] = *f;
            extents[s.outer] = (e + *f - 1) / *f;
        }
    }
    return false;
}

}  // namespace

std::vector<int64_t> per_iteration_extents(const Function &consumer, const std::string &var,
                                           const std::vector<int64_t> &extents) {
    if (!consumer.updates().empty()) return {};
    const std::vector<std::string> &args = consumer.args();
    std::map<std::string, int64_t> named;
    for (size_t i = 0; i < args.size() && i < extents.size(); i++) named[args[i]] = extents[i];
    if (args.size() != extents.size() || rounds_past(consumer.definition(), false, named)) return {};
    // The consumer's dims each loop depends on, through its splits and fuses.
    std::map<std::string, std::set<size_t>> dims_of;
    for (size_t i = 0; i < args.size(); i++) dims_of[args[i]] = {i};
    for (const Split &s : consumer.definition().schedule().splits()) {
        if (s.is_fuse()) {
            std::set<size_t> both = dims_of[s.outer];
            both.insert(dims_of[s.inner].begin(), dims_of[s.inner].end());
            dims_of[s.old_var] = both;
        } else {
            dims_of[s.outer] = dims_of[s.old_var];
            if (s.is_split()) dims_of[s.inner] = dims_of[s.old_var];
        }
    }
    // Loops inside `var` (innermost first until it) and at or outside it.
    std::vector<int> inside(args.size(), 0), outside(args.size(), 0);
    bool passed = false;
    for (const Dim &dim : consumer.definition().schedule().dims()) {
        // Loop names carry the vars they were split from ("y.rows.rows_r").
        const std::string &n = dim.var;
        const bool suffix = n.size() > var.size() && n.compare(n.size() - var.size() - 1, std::string::npos, "." + var) == 0;
        if (n == var || suffix) passed = true;
        for (size_t i : dims_of[dim.var]) (passed ? outside : inside)[i]++;
        // Outside, a loop fused from more than two dims leaves Halide's bounds
        // inference (nested div and mod by run-time extents) a range, not a point:
        // max_pool2d NCHW with y, c and n fused required all of y.
        if (passed && dims_of[dim.var].size() > 2) return {};
    }
    if (!passed) return {};
    std::vector<int64_t> result(args.size(), 1);
    for (size_t i = 0; i < args.size(); i++) {
        if (inside[i] > 0 && outside[i] > 0) return {};  // a part of the dim per iteration
        if (inside[i] > 0) result[i] = extents[i];
    }
    return result;
}

int64_t points_read_per_iteration(schedule::ScheduleBuilder &script, const analysis::TensorExpr &reader,
                                  const std::string &producer, const std::string &var) {
    std::vector<int64_t> full;
    std::vector<int> column;  // each consumer arg's loop dim in `reader`
    for (const std::string &arg : script.func(reader.func).function().args()) {
        const int j = reader.find_dim(arg);
        if (j < 0) return 0;
        column.push_back(j);
        full.push_back(reader.dims[size_t(j)].extent);
    }
    const std::vector<int64_t> per = per_iteration_extents(script.func(reader.func).function(), var, full);
    if (per.empty()) return 0;
    int64_t points = 0;
    for (const analysis::AccessMap &m : reader.reads) {
        if (m.tensor != producer) continue;
        if (!m.affine || m.coef.empty()) return 0;
        int64_t span = 1;
        for (size_t i = 0; i < per.size(); i++) span += std::abs(m.coef[0][size_t(column[i])]) * (per[i] - 1);
        points = std::max(points, span);
    }
    return points;
}

bool bound_attached_region(schedule::ScheduleBuilder &script, const std::string &producer, const std::string &consumer,
                           const std::string &var, const std::vector<std::pair<std::string, int64_t>> &dims) {
    const Function p = script.func(producer).function();
    std::vector<int64_t> full;
    std::map<std::string, int64_t> named;
    for (const auto &d : dims) {
        full.push_back(d.second);
        named[d.first] = d.second;
    }
    if (rounds_past(p.definition(), false, named)) return false;
    for (const Definition &u : p.updates()) {
        if (rounds_past(u, true, named)) return false;
    }
    const std::vector<int64_t> extents = per_iteration_extents(script.func(consumer).function(), var, full);
    if (extents.empty()) return false;
    for (size_t i = 0; i < dims.size(); i++) script.bound_extent(producer, dims[i].first, int(extents[i]));
    return true;
}

}  // namespace tessera::rules
