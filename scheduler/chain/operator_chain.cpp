#include "operator_chain.h"

#include "read_patterns.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace tessera::chain {

using analysis::AccessMap;
using analysis::FunctionDag;
using analysis::FunctionNode;
using analysis::StagePlan;
using analysis::TensorExpr;

namespace {

// The single update of a compute-intensive Function, or null.
const TensorExpr *compute_update(const StagePlan &plan, const std::string &name) {
    auto it = plan.stages.find(name);
    if (it == plan.stages.end() || it->second.size() != 2) return nullptr;
    const TensorExpr *c = analysis::compute_stage(it->second);
    return c == &it->second[1] ? c : nullptr;
}

// `m` with its coefficients moved onto the chain's loops (`to[j]`: the chain loop
// of the stage's loop j).
AccessMap in_chain_loops(const AccessMap &m, const std::vector<size_t> &to, size_t chain_loops) {
    AccessMap out = m;
    for (size_t d = 0; d < m.coef.size(); d++) {
        out.coef[d].assign(chain_loops, 0);
        for (size_t j = 0; j < m.coef[d].size() && j < to.size(); j++)
            out.coef[d][to[j]] += m.coef[d][j];
    }
    return out;
}

// The compute-intensive producer that `consumer`'s read of `tensor` reaches through
// memory-bound Functions only (collected in `between`, nearest first); empty if none.
std::string producer_through(const std::string &tensor, const StagePlan &plan, std::vector<std::string> &between) {
    std::vector<std::string> pending = {tensor};
    std::set<std::string> seen;
    std::string found;
    while (!pending.empty()) {
        const std::string name = pending.front();
        pending.erase(pending.begin());
        if (!seen.insert(name).second || !plan.stages.count(name)) continue;
        if (compute_update(plan, name)) {
            if (!found.empty() && found != name) return "";  // two compute producers: not a chain
            found = name;
            continue;
        }
        const std::vector<TensorExpr> &stages = plan.stages.at(name);
        const bool memory_bound = std::none_of(stages.begin(), stages.end(), [](const TensorExpr &t) {
            return t.cls == analysis::StageClass::ComputeIntensive || t.cls == analysis::StageClass::Unanalysable;
        });
        if (!memory_bound) return "";
        between.push_back(name);
        for (const TensorExpr &t : stages) {
            for (const AccessMap &m : t.reads) {
                if (!m.is_input && m.tensor != name) pending.push_back(m.tensor);
            }
        }
    }
    return found;
}

}  // namespace

std::string OperatorChain::describe() const {
    std::ostringstream s;
    s << producer;
    for (const std::string &b : between)
        s << " -> " << b;
    s << " -> " << consumer << " over";
    for (const ChainLoop &l : loops) {
        s << " " << l.name << "=" << l.extent
          << (l.in_producer && l.in_consumer ? ""
              : l.in_producer                ? "(producer)"
                                             : "(consumer)");
    }
    return s.str();
}

std::vector<OperatorChain> find_chains(const FunctionDag &dag, const StagePlan &plan) {
    std::vector<OperatorChain> chains;
    std::set<std::string> used;
    for (const FunctionNode &node : dag.nodes()) {
        const TensorExpr *u2 = compute_update(plan, node.func.name());
        if (!u2) continue;
        for (const AccessMap &read : u2->reads) {
            if (read.is_input) continue;
            std::vector<std::string> between;
            const std::string producer = producer_through(read.tensor, plan, between);
            if (producer.empty() || used.count(producer)) continue;
            const TensorExpr &u1 = *compute_update(plan, producer);
            const FunctionNode *pnode = dag.find(producer);
            const FunctionNode *inode = dag.find(read.tensor);
            // The intermediate as the consumer reads it must be the producer's shape, or
            // that shape padded (a boundary condition between: a 1x1 then a padded 3x3):
            // each of the producer's pure dims is then one loop of the consumer.
            if (!pnode || !inode || inode->region.size() != pnode->region.size() ||
                read.coef.size() != pnode->region.size()) {
                continue;
            }
            bool same_shape = true;
            for (size_t i = 0; i < pnode->region.size(); i++) {
                same_shape &= inode->region[i].extent >= pnode->region[i].extent;
            }
            if (!same_shape) continue;

            OperatorChain c;
            c.producer = producer;
            c.consumer = node.func.name();
            // Between stages in pipeline order, producers first.
            for (const FunctionNode &n : dag.nodes()) {
                if (std::find(between.begin(), between.end(), n.func.name()) != between.end()) {
                    c.between.push_back(n.func.name());
                }
            }
            for (const std::string &b : c.between) c.row_statistic_between |= plan.stages.at(b).size() > 1;
            c.intermediate = read.tensor;
            c.element_bytes = u2->element_bytes;
            for (const analysis::LoopDim &d : u2->dims)
                c.loops.push_back({d.name, d.extent, false, true, d.reduction});
            // The producer's pure dims: the consumer loop indexing the intermediate's
            // storage dim with coefficient 1 (a pure loop first: a window's taps ride along).
            std::vector<size_t> to(u1.dims.size(), 0);
            bool mapped = true;
            for (size_t i = 0; i < u1.dims.size() && mapped; i++) {
                if (u1.dims[i].reduction) continue;
                int best = -1;
                for (size_t j = 0; j < u2->dims.size(); j++) {
                    if (read.coef[i][j] != 1) continue;
                    if (best < 0 || (u2->dims[size_t(best)].reduction && !u2->dims[j].reduction)) best = int(j);
                }
                mapped = best >= 0;
                if (mapped) {
                    to[i] = size_t(best);
                    c.loops[size_t(best)].in_producer = true;
                }
            }
            if (!mapped) continue;
            // The producer's private loops: its reduction dims.
            for (size_t i = 0; i < u1.dims.size(); i++) {
                if (!u1.dims[i].reduction) continue;
                to[i] = c.loops.size();
                c.loops.push_back({producer + "." + u1.dims[i].name, u1.dims[i].extent, true, false, true});
            }
            for (const AccessMap &m : u1.reads) {
                if (m.is_input) c.tensors.push_back({m.tensor, 0, false, in_chain_loops(m, to, c.loops.size())});
            }
            std::vector<size_t> same(u2->dims.size());
            for (size_t j = 0; j < same.size(); j++)
                same[j] = j;
            for (const AccessMap &m : u2->reads) {
                if (m.is_input) c.tensors.push_back({m.tensor, 1, false, in_chain_loops(m, same, c.loops.size())});
            }
            c.tensors.push_back({c.consumer, 1, true, in_chain_loops(u2->write, same, c.loops.size())});
            c.intermediate_read = in_chain_loops(read, same, c.loops.size());
            used.insert(producer);
            chains.push_back(c);
            break;
        }
    }
    return chains;
}

}  // namespace tessera::chain
