#include "explanation.h"

#include <iomanip>

namespace tessera {

using analysis::TensorExpr;

void explain_program(std::ostream &out, const TensorExpr &t, const rtile::RProgram &p, const char *label) {
    out << "    " << label << ": predicted " << std::fixed << std::setprecision(3) << p.predicted_ms
        << " ms, bottleneck " << p.bottleneck << ", " << p.parallel_tasks << " parallel tasks\n";
    static const char *levels[] = {"registers", "L1", "L2"};
    for (int l = 0; l < rtile::kTileLevels; l++) {
        out << "      " << levels[l] << " tile: " << p.tiles[l].to_string(t) << "\n";
    }
    if (p.fusion) {
        const analysis::AxisFusion &f = *p.fusion;
        out << "      axes " << f.inner_name << " and " << f.outer_name << " fused into " << f.fused_name() << " ("
            << f.inner_extent * f.outer_extent << " points); its L2 tiles are whole " << f.inner_name << " rows\n";
    }
    std::string shifted;
    for (size_t j = 0; j < t.dims.size(); j++) {
        if (p.shifts(j)) shifted += " " + t.dims[j].name;
    }
    if (!shifted.empty())
        out << "      L2 tiles shift inwards along" << shifted << ": the last recomputes an overlap\n";
    if (p.packed_read >= 0 && p.transposed) {
        out << "      transposed: vectorised along " << t.dims[p.vector_dim].name << "; packed operand "
            << t.reads[p.packed_read].tensor << " stored with it innermost; outputs written by scatter per chunk\n";
        if (p.chunk_innermost) {
            out << "      strided window: the reduction chunk " << t.dims[p.split_reduction].name
                << " runs innermost in the micro-kernel\n";
        }
    } else if (p.packed_read >= 0) {
        out << "      packed operand: " << t.reads[p.packed_read].tensor << " (row padding " << p.padding_elements
            << " elements)\n";
    }
    if (p.swept_panels > 0) {
        out << "      L2 tile outgrows the L2: "
            << t.reads[size_t(rtile::packed_read_of(t, p, p.tiles[rtile::kL2Tile]))].tensor << " swept in panels ("
            << p.swept_panels << " per tile), the other reads streamed once per panel\n";
    }
}

void explain_candidates(std::ostream &out, const StageDecision &d) {
    const rtile::RProgram *chosen = d.chosen_program();
    if (!chosen) return;
    explain_program(out, rtile::program_expr(d.compute, *chosen), *chosen, to_string(d.choice));
    for (size_t i = 0; i < d.candidates.size(); i++) {
        if (int(i) == d.chosen) continue;
        explain_program(out, rtile::program_expr(d.compute, d.candidates[i]), d.candidates[i],
                        i == 0 ? "best predicted" : "runner-up");
    }
}

void explain_memory_output(std::ostream &out, const std::string &name, const rules::Attachment &row,
                           const rules::RowDecisions &decisions, const TensorExpr &t, int vector_lanes) {
    out << "  " << name << ": memory-intensive output, vectorised rows in parallel tasks"
        << (row.var.empty() ? "" : " (row loop " + row.var + ")") << "\n";
    for (const std::string &input : decisions.prefetched) {
        out << "    " << input << " is read again after the row's reductions: each row prefetches its next row\n";
    }
    if (row.row_width > vector_lanes) {
        out << "    one row, cut into blocks of " << row.row_width
            << " points: the reduction it reads is computed per block\n";
    }
    const rules::TransposeBlock &tb = decisions.transpose;
    if (tb.dim > 0) {
        out << "    transposed read: blocks of " << tb.rows << " rows along " << t.dims[size_t(tb.dim)].name << " x "
            << tb.vectors << " vector" << (tb.vectors == 1 ? "" : "s")
            << (tb.sweep ? ", swept along the input rows, tasks of input rows" : ", tasks of blocks")
            << (tb.staged ? "; in cache: each " + std::to_string(tb.rows) + "x" + std::to_string(tb.rows) +
                                " square loaded into registers and transposed there"
                          : "")
            << "\n";
    }
}

namespace {
void explain_order(std::ostream &out, const chain::OperatorChain &c, const chain::BlockOrder &o, const char *label) {
    out << "    " << label << ": " << o.to_string(c) << ", predicted " << std::fixed << std::setprecision(3)
        << o.cost_ms << " ms (slowest level)\n";
    for (const chain::LevelBlocks &l : o.levels) {
        out << "      " << l.level << ": moves " << std::setprecision(2) << l.dv_bytes / 1e6 << " MB, "
            << l.mu_bytes / 1e3 << " KB resident, " << std::setprecision(3) << l.cost_ms << " ms; blocks";
        for (size_t i = 0; i < l.tile.size(); i++) {
            if (l.tile[i] != c.loops[i].extent) out << " " << c.loops[i].name << "=" << l.tile[i];
        }
        out << "\n";
    }
}
}  // namespace

namespace {

// What the driver did with a chain, in words.
std::string describe_outcome(const ChainDecision &d) {
    const std::string one_by_one = ": the stages are scheduled one by one";
    switch (d.outcome) {
    case ChainOutcome::Fused: return "fused: " + d.form;
    case ChainOutcome::FusedByBands: return "fused by bands: " + d.form + " (see " + d.consumer + ")";
    case ChainOutcome::NotFused: return "not fused (" + d.why_not + ")" + one_by_one;
    case ChainOutcome::FusionOff:
    case ChainOutcome::NoGainPredicted: return to_string(d.outcome) + one_by_one;
    case ChainOutcome::PartOfFusedChain: return to_string(d.outcome);
    }
    return "?";
}

}  // namespace

void explain_chain(std::ostream &out, const chain::OperatorChain &c, const chain::ChainAnalysis &a,
                   double analysis_ms, const ChainDecision &decision) {
    const std::string outcome = describe_outcome(decision);
    out << "  chain: " << c.describe() << "\n";
    out << "    " << a.orders_considered << " block orders analysed in " << std::fixed << std::setprecision(2)
        << analysis_ms << " ms\n";
    for (size_t i = 0; i < a.orders.size(); i++) explain_order(out, c, a.orders[i], i == 0 ? "best order" : "runner-up");
    explain_order(out, c, a.unfused, "one by one (the producer's order shown; levels sum both ops)");
    out << "    predicted gain of fusing: " << std::setprecision(2) << a.predicted_gain << "x; " << outcome << "\n";
}

void explain_schedule(std::ostream &out, const schedule::PipelineSchedule &s) {
    out << "  schedule (loops outermost first):\n" << s.describe();
}

}  // namespace tessera
