#include "read_patterns.h"

#include <algorithm>
#include <set>

namespace tessera::analysis {

const TensorExpr *compute_stage(const std::vector<TensorExpr> &stages) {
    for (const TensorExpr &t : stages) {
        if (t.cls == StageClass::ComputeIntensive) return &t;
    }
    return nullptr;
}

std::string unanalysable_reason(const std::vector<TensorExpr> &stages) {
    for (const TensorExpr &t : stages) {
        if (t.cls == StageClass::Unanalysable) return t.reason;
    }
    return "";
}

bool window_slides_along(const FunctionNode &producer, const std::string &var, const StagePlan &plan) {
    for (const std::string &consumer : producer.consumers) {
        if (!plan.stages.count(consumer)) continue;
        for (const TensorExpr &t : plan.stages.at(consumer)) {
            const int j = t.find_dim(var);
            if (j < 0) continue;
            const AccessMap *first = nullptr;
            for (const AccessMap &m : t.reads) {
                if (m.tensor != producer.func.name()) continue;
                for (size_t d = 0; d < m.coef.size(); d++) {
                    if (m.coef[d][size_t(j)] == 0) continue;
                    // The window as a reduction (x * 2 + r.x) ...
                    for (size_t r : t.reduction_dims()) {
                        if (m.coef[d][r] != 0) return true;
                    }
                    // ... or as taps unrolled (x * 2 - 1, x * 2, x * 2 + 1): reads
                    // alike but for where they start along a dim that moves with var.
                    if (first && first->coef == m.coef && first->offset.size() == m.offset.size() &&
                        first->offset[d] != m.offset[d]) {
                        return true;
                    }
                }
                if (!first) first = &m;
            }
        }
    }
    return false;
}

namespace {

// Storage dim d of `m`'s tensor is loop dim d, for every storage dim it has.
bool storage_dims_are_loop_dims(const AccessMap &m) {
    for (size_t d = 0; d < m.coef.size(); d++) {
        if (m.offset[d] != 0) return false;
        for (size_t j = 0; j < m.coef[d].size(); j++) {
            if (m.coef[d][j] != (d == j ? 1 : 0)) return false;
        }
    }
    return true;
}

// Dims of `out` from `first` on all have one point.
bool unit_dims_from(const TensorExpr &out, size_t first) {
    for (size_t j = first; j < out.dims.size(); j++) {
        if (out.dims[j].extent != 1) return false;
    }
    return true;
}

// identity_read, where `out` may have more (outer) dims than the tensor, each of
// one point: a batch of one the graph's reshape put back around a product
// (out(n, m, b) = gemm(n, m) with b in [0, 1)).
bool identity_read_within_unit_dims(const AccessMap &m, const TensorExpr &out) {
    return m.coef.size() <= out.dims.size() && unit_dims_from(out, m.coef.size()) && storage_dims_are_loop_dims(m);
}

}  // namespace

bool identity_read(const AccessMap &m, const TensorExpr &out) {
    return m.coef.size() == out.dims.size() && storage_dims_are_loop_dims(m);
}

const FunctionNode *epilogue_producer(const TensorExpr &out, const FunctionDag &dag, const StagePlan &plan) {
    for (const AccessMap &m : out.reads) {
        if (m.is_input || plan.inlined.count(m.tensor)) continue;
        const FunctionNode *producer = dag.find(m.tensor);
        if (!producer || producer->consumers.size() != 1 || producer->func.updates().size() != 1) continue;
        const TensorExpr *sums = compute_stage(plan.stages.at(m.tensor));
        if (!sums || !identity_read_within_unit_dims(m, out)) continue;
        // The producer covers exactly the output's points: a read through a clamp
        // (a Concat of its channels) maps the output's larger domain onto it.
        const std::vector<size_t> spatial = sums->spatial_dims();
        bool same_points = spatial.size() <= out.dims.size() && unit_dims_from(out, spatial.size());
        for (size_t i = 0; same_points && i < spatial.size(); i++) {
            same_points = sums->dims[spatial[i]].extent == out.dims[i].extent;
        }
        if (same_points) return producer;
    }
    return nullptr;
}

const FunctionNode *read_reduction(const AccessMap &m, const FunctionDag &dag, const StagePlan &plan) {
    if (m.is_input || plan.inlined.count(m.tensor)) return nullptr;
    const FunctionNode *producer = dag.find(m.tensor);
    return producer && !producer->func.updates().empty() ? producer : nullptr;
}

std::vector<std::string> reread_inputs(const TensorExpr &out, const FunctionDag &dag, const StagePlan &plan) {
    std::set<std::string> reduced;
    for (const AccessMap &m : out.reads) {
        if (!read_reduction(m, dag, plan)) continue;
        for (const TensorExpr &stage : plan.stages.at(m.tensor)) {
            for (const AccessMap &r : stage.reads) {
                if (r.is_input) reduced.insert(r.tensor);
            }
        }
    }
    std::vector<std::string> inputs;
    for (const AccessMap &m : out.reads) {
        if (m.is_input && identity_read(m, out) && reduced.count(m.tensor) &&
            std::find(inputs.begin(), inputs.end(), m.tensor) == inputs.end()) {
            inputs.push_back(m.tensor);
        }
    }
    return inputs;
}

bool producers_reread(const TensorExpr &out, const FunctionDag &dag, const StagePlan &plan) {
    for (const AccessMap &m : out.reads) {
        if (m.is_input || plan.inlined.count(m.tensor) || !identity_read(m, out)) continue;
        const FunctionNode *producer = dag.find(m.tensor);
        if (producer && producer->func.updates().empty() &&
            !reread_inputs(plan.stages.at(m.tensor)[0], dag, plan).empty()) {
            return true;
        }
    }
    return false;
}

bool reads_matrix_vector(const TensorExpr &out, const FunctionDag &dag, const StagePlan &plan) {
    for (const AccessMap &m : out.reads) {
        if (!identity_read(m, out) || !read_reduction(m, dag, plan)) continue;
        const std::vector<TensorExpr> &stages = plan.stages.at(m.tensor);
        if (stages.size() != 2) continue;
        const TensorExpr &u = stages[1];
        int rows = -1, wide = 0;
        for (size_t j : u.spatial_dims()) {
            if (u.dims[j].extent == 1) continue;
            rows = int(j);
            wide++;
        }
        if (wide != 1) continue;
        for (const AccessMap &r : u.reads) {
            if (r.is_input && !r.depends_on(size_t(rows))) return true;
        }
    }
    return false;
}

bool reads_tensor(const TensorExpr &t, const std::string &name) {
    for (const AccessMap &m : t.reads) {
        if (m.tensor == name) return true;
    }
    return false;
}

bool reads_at_point(const TensorExpr &t, const std::string &name) {
    for (const AccessMap &m : t.reads) {
        if (m.tensor == name && identity_read(m, t)) return true;
    }
    return false;
}

bool reads_only_at_point(const TensorExpr &t, const std::string &name) {
    bool any = false;
    for (const AccessMap &m : t.reads) {
        if (m.tensor != name) continue;
        if (!identity_read(m, t)) return false;
        any = true;
    }
    return any;
}

bool reads_row_reduction(const TensorExpr &out, const FunctionDag &dag, const StagePlan &plan) {
    for (const AccessMap &m : out.reads) {
        if (!identity_read(m, out) || !read_reduction(m, dag, plan)) continue;
        bool runs = true;
        const std::vector<TensorExpr> &stages = plan.stages.at(m.tensor);
        for (size_t k = 1; k < stages.size(); k++) {
            for (const AccessMap &r : stages[k].reads)
                runs &= stages[k].slides_innermost(r);
        }
        if (runs) return true;
    }
    return false;
}

bool reads_reduction_across_rows(const TensorExpr &out, const FunctionDag &dag, const StagePlan &plan) {
    for (const AccessMap &m : out.reads) {
        if (!read_reduction(m, dag, plan) || compute_stage(plan.stages.at(m.tensor))) continue;
        for (size_t j : out.spatial_dims()) {
            if (out.dims[j].extent > 1 && !m.depends_on(j)) return true;
        }
    }
    return false;
}

std::vector<std::string> readers_of(const FunctionNode &node, const FunctionDag &dag, const StagePlan &plan) {
    std::vector<std::string> readers;
    std::vector<std::string> pending = node.consumers;
    std::set<std::string> seen;
    while (!pending.empty()) {
        const std::string c = pending.back();
        pending.pop_back();
        if (!seen.insert(c).second) continue;
        const FunctionNode *cn = plan.inlined.count(c) ? dag.find(c) : nullptr;
        if (cn)
            pending.insert(pending.end(), cn->consumers.begin(), cn->consumers.end());
        else
            readers.push_back(c);
    }
    return readers;
}

bool read_whole_at_each_point(const FunctionNode &node, const FunctionDag &dag, const StagePlan &plan) {
    const std::string &name = node.func.name();
    bool any = false;
    for (const std::string &reader : readers_of(node, dag, plan)) {
        auto stages = plan.stages.find(reader);
        if (stages == plan.stages.end()) return false;
        for (const TensorExpr &t : stages->second) {
            for (const AccessMap &m : t.reads) {
                if (m.tensor != name) continue;
                if (!m.affine) return false;
                for (size_t j : t.spatial_dims()) {
                    if (m.depends_on(j)) return false;
                }
                any = true;
            }
        }
    }
    return any;
}

}  // namespace tessera::analysis
