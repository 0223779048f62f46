// tessera-bench's summary (apps/bench/bench_record.h): geomeans over compute- and
// memory-bound ops apart, the median, and rows where oneDNN took a slow path kept
// out of them and listed with their impl.
#include "bench/bench_record.h"

#include <gtest/gtest.h>

namespace tessera::bench {
namespace {

BenchRecord row(const std::string &op, const std::string &scheduler, double ms, bool compute_bound,
                const std::string &impl = "halide", bool optimised = true) {
    BenchRecord r;
    r.op = op;
    r.shape = "n=1";
    r.scheduler = scheduler;
    r.status = "ok";
    r.ok = true;
    r.time_ms_median = r.time_ms_min = ms;
    r.compute_bound = compute_bound;
    r.impl = impl;
    r.optimised_impl = optimised;
    return r;
}

TEST(BenchSummary, SlowPathsStayOutOfTheGeomeans) {
    std::vector<BenchRecord> records = {
        row("matmul", kOnednn, 2.0, true, "brg:avx512_core"), row("matmul", "Tessera", 1.0, true),
        row("conv2d", kOnednn, 1.0, true, "brgconv:avx512_core"), row("conv2d", "Tessera", 2.0, true),
        row("relu", kOnednn, 1.0, false, "jit:avx512_core"), row("relu", "Tessera", 0.5, false),
        // 62.8x over a C++ fallback must not lift the headline.
        row("reduce_sum", kOnednn, 62.8, false, "ref:any", false), row("reduce_sum", "Tessera", 1.0, false),
    };
    derive_speedups(records);
    const std::string s = format_summary(records, {"Tessera", kOnednn});
    EXPECT_NE(s.find("Tessera        4/4 correct; vs oneDNN: compute-bound 1.00x (2 ops), memory-bound 2.00x (1), "
                     "all 1.26x, median 2.00x"),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("not in the geomeans: oneDNN took a slow path on 1 op(s)"), std::string::npos) << s;
    EXPECT_NE(s.find("reduce_sum n=1: ref:any; Tessera 62.80x"), std::string::npos) << s;
}

TEST(BenchSummary, ContendersAgainstEachOtherCountEveryOp) {
    std::vector<BenchRecord> records = {row("matmul", "Tessera", 1.0, true), row("matmul", "Adams2019", 3.0, true),
                                        row("relu", "Tessera", 2.0, false), row("relu", "Adams2019", 1.0, false)};
    const std::string s = format_summary(records, {"Tessera", "Adams2019"});
    EXPECT_NE(s.find("Tessera vs Adams2019: compute-bound 3.00x (1 ops), memory-bound 0.50x (1), all 1.22x, "
                     "median 1.75x"),
              std::string::npos)
        << s;
}

}  // namespace
}  // namespace tessera::bench
