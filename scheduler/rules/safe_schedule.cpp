#include "safe_schedule.h"

#include "loops.h"

#include <algorithm>
#include <cmath>

namespace tessera::rules {

using analysis::TensorExpr;
using Halide::TailStrategy;

void schedule_safe(schedule::ScheduleBuilder &script, const Halide::Internal::Function &f,
                   const std::vector<int64_t> &extents, const hal::DeviceSpec &d) {
    script.compute_root(f.name());
    const std::vector<std::string> &args = f.args();
    const int64_t innermost_extent = extents.empty() ? 0 : extents[0];
    // The innermost pure var is vectorised, guarded (pure vars of an update are
    // data-parallel by Halide's rules). Side by side, a grouped NCHW 3x3
    // convolution 32x56x56 groups=4 5.4 -> 2.3 ms (Mullapudi2016 0.46, oneDNN
    // 0.31 ms), NHWC 64x28x28 groups=32 0.30 -> 0.25 ms (Mullapudi2016 0.13).
    // Not a short row ending in a guarded vector: the roller suite's NCHW 21x21
    // groups=84 1x1 (2 vectors and 5 points) ran 0-8% slower vectorised.
    const int64_t lanes = d.vector_lanes;
    const bool vectorize =
        innermost_extent >= lanes && (innermost_extent % lanes == 0 || innermost_extent >= 8 * lanes);
    const std::string vi = suffixed(args[0], "vi");
    auto split_vector = [&](schedule::StageBuilder &s) {
        s.split(args[0], suffixed(args[0], "vo"), vi, int(lanes), TailStrategy::GuardWithIf).vectorize(vi);
    };
    {
        schedule::StageBuilder s = script.stage(f.name());
        if (vectorize) split_vector(s);
        // A batch of one left one core idle: a packed convolution's channel-blocked
        // sums back to NCHW (conv2d packed=1, c % 16 and c / 16) ran on one core.
        std::string task = args.size() > 1 ? args.back() : "";
        int64_t tasks = extents.size() == args.size() && !task.empty() ? extents.back() : 2 * int64_t(d.cores);
        for (size_t k = args.size() - 1; k > 1 && tasks < 2 * int64_t(d.cores); k--) {
            const std::string fused = args[k - 1] + "_" + task;
            s.fuse(args[k - 1], task, fused);
            task = fused;
            tasks *= extents[k - 1];
        }
        if (!task.empty()) s.parallel(task);
    }
    // Updates run in parallel over the outermost pure variable when it indexes the
    // update's own output directly (no two iterations write the same place); a
    // scatter runs serially, as written.
    for (size_t k = 0; k < f.updates().size(); k++) {
        schedule::StageBuilder s = script.stage(f.name(), int(k));
        const std::vector<Halide::Expr> &uargs = f.updates()[k].args();
        const Halide::Internal::Variable *v = uargs.back().as<Halide::Internal::Variable>();
        const Halide::Internal::Variable *v0 = uargs[0].as<Halide::Internal::Variable>();
        const bool pure_inner = vectorize && v0 && v0->name == args[0];
        if (pure_inner) {
            // The vector innermost, inside the reduction loops.
            split_vector(s);
            std::vector<std::string> order = {vi};
            // The loops after the split: the builder's copy of f has them.
            const Halide::Internal::Function split_f = script.func(f.name()).function();
            for (const Halide::Internal::Dim &dim : split_f.updates()[k].schedule().dims()) {
                const std::string name = dim.var.substr(dim.var.rfind('.') + 1);
                if (name != vi && name != Halide::Var::outermost().name()) order.push_back(name);
            }
            s.reorder(order);
        }
        if (args.size() > 1 && v && v->name == args.back()) {
            s.parallel(args.back());
        } else if (!pure_inner) {
            s.unscheduled();
        }
    }
}

}  // namespace tessera::rules
