#include "function_dag.h"
#include "diagnostics.h"

#include <algorithm>

namespace tessera::analysis {

using namespace Halide;
using namespace Halide::Internal;

namespace {

int64_t constant_or_fail(const Expr &e, const std::string &what) {
    const int64_t *v = e.defined() ? as_const_int(e) : nullptr;
    user_assert(v) << "Tessera: " << what << " is not a constant (" << e << ")\n";
    return *v;
}

// Every Function (and input) called from `e`, with the box of the call given `scope`.
void merge_required(const Expr &e, const Scope<Interval> &scope, std::map<std::string, Box> &into) {
    for (auto &kv : boxes_required(e, scope)) {
        auto it = into.find(kv.first);
        if (it == into.end()) {
            into.emplace(kv.first, kv.second);
        } else {
            merge_boxes(it->second, kv.second);
        }
    }
}

std::vector<Extent> to_extents(const Box &box, const std::string &name) {
    std::vector<Extent> region;
    for (size_t i = 0; i < box.size(); i++) {
        Expr lo = simplify(box[i].min), hi = simplify(box[i].max);
        user_assert(box[i].is_bounded()) << "Tessera: the region of " << name << " is unbounded in dimension " << i
                                          << "; add estimates to the pipeline's inputs and outputs\n";
        int64_t a = constant_or_fail(lo, "the lower bound of " + name + " in dimension " + std::to_string(i));
        int64_t b = constant_or_fail(hi, "the upper bound of " + name + " in dimension " + std::to_string(i));
        region.push_back({a, b - a + 1});
    }
    return region;
}

}  // namespace

FunctionDag::FunctionDag(const std::vector<Function> &outputs) {
    std::map<std::string, Function> env;
    for (const Function &out : outputs) {
        env[out.name()] = out;
        for (auto &kv : find_transitive_calls(out)) env.insert(kv);
    }
    std::vector<std::string> order = topological_order(outputs, env);

    std::map<std::string, Box> required;
    for (const Function &out : outputs) {
        const std::vector<Bound> &estimates = out.schedule().estimates();
        Box box;
        for (size_t i = 0; i < out.args().size(); i++) {
            const std::string &arg = out.args()[i];
            auto est = std::find_if(estimates.begin(), estimates.end(), [&](const Bound &b) { return b.var == arg; });
            user_assert(est != estimates.end() && est->min.defined() && est->extent.defined())
                << "Tessera: output " << out.name() << " has no estimate for dimension " << i << " (" << arg
                << "); call set_estimate/set_estimates on it\n";
            int64_t min = constant_or_fail(est->min, "the estimated min of " + out.name() + "." + arg);
            int64_t extent = constant_or_fail(est->extent, "the estimated extent of " + out.name() + "." + arg);
            user_assert(extent > 0) << "Tessera: output " << out.name() << " has a non-positive estimate for "
                                    << arg << "\n";
            box.push_back(Interval(Expr(int(min)), Expr(int(min + extent - 1))));
        }
        required[out.name()] = box;
    }

    // Consumers first: each Function's region is final before its producers are visited.
    std::map<std::string, std::vector<std::string>> consumers;
    std::map<std::string, Box> input_boxes;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const Function &f = env.at(*it);
        auto req = required.find(f.name());
        internal_assert(req != required.end()) << "no region for " << f.name();
        Box box = req->second;
        std::map<std::string, Box> calls;
        auto visit = [&](const Definition &def, bool is_update) {
            Scope<Interval> scope;
            for (size_t i = 0; i < f.args().size(); i++) scope.push(f.args()[i], box[i]);
            if (is_update) {
                for (const ReductionVariable &rv : def.schedule().rvars()) {
                    scope.push(rv.var, Interval(rv.min, simplify(rv.min + rv.extent - 1)));
                }
            }
            for (const Expr &v : def.values()) merge_required(v, scope, calls);
            for (const Expr &a : def.args()) merge_required(a, scope, calls);
        };
        visit(f.definition(), false);
        for (const Definition &u : f.updates()) visit(u, true);
        calls.erase(f.name());  // an update reading its own Function
        for (auto &kv : calls) {
            if (env.count(kv.first)) {
                consumers[kv.first].push_back(f.name());
                auto r = required.find(kv.first);
                if (r == required.end()) {
                    required.emplace(kv.first, kv.second);
                } else {
                    merge_boxes(r->second, kv.second);
                }
            } else if (input_boxes.count(kv.first)) {
                merge_boxes(input_boxes[kv.first], kv.second);
            } else {
                input_boxes.emplace(kv.first, kv.second);
            }
        }
    }

    // Every input region must be bounded too (a user error names the input).
    for (auto &kv : input_boxes) to_extents(kv.second, "input " + kv.first);
    for (const std::string &name : order) {
        FunctionNode node;
        node.func = env.at(name);
        node.region = to_extents(required.at(name), name);
        node.consumers = consumers[name];
        node.is_output = std::any_of(outputs.begin(), outputs.end(), [&](const Function &o) { return o.name() == name; });
        nodes_.push_back(node);
    }
}

const FunctionNode *FunctionDag::find(const std::string &name) const {
    for (const FunctionNode &n : nodes_) {
        if (n.func.name() == name) return &n;
    }
    return nullptr;
}

}  // namespace tessera::analysis
