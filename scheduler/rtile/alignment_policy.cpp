#include "alignment_policy.h"

#include "alignment.h"
#include "diagnostics.h"

#include <algorithm>

namespace tessera::rtile {

namespace {

// x86: the rules of rtile/alignment.h for the spec's vectors, registers and lines.
class X86Alignment : public AlignmentPolicy {
public:
    explicit X86Alignment(const hal::DeviceSpec &d) : d_(d) {}
    int64_t vector_granule(int64_t extent) const override { return rtile::vector_granule(extent, d_.vector_lanes); }
    int vector_width(int64_t extent) const override { return rtile::vector_width(extent, d_.vector_lanes); }
    int register_tile_accumulators(const RTile &tile, const RProgram &p) const override {
        return rtile::register_tile_accumulators(tile, p, d_);
    }
    int register_tile_registers(const RTile &tile, const RProgram &p) const override {
        return rtile::register_tile_registers(tile, p, d_);
    }
    bool register_tile_fits(const analysis::TensorExpr &t, const RTile &tile, const RProgram &p) const override {
        return rtile::register_tile_fits(t, tile, p, d_);
    }
    int64_t storage_padding(int64_t row_elements, int element_bytes) const override {
        return rtile::storage_padding(row_elements, element_bytes, d_.innermost_cache().line_bytes);
    }

private:
    const hal::DeviceSpec &d_;
};

// A GPU (Roller (OSDI'22) §4): the "vector" is a warp of threads along the output's
// contiguous dim; a thread's register tile holds its accumulators and one operand
// value per row and column; shared-memory rows whose stride is a multiple of the
// banks get one bank word of padding, so a column read by a warp spreads over
// every bank.
class GpuAlignment : public AlignmentPolicy {
public:
    explicit GpuAlignment(const hal::DeviceSpec &d) : g_(*d.gpu) {}
    int64_t vector_granule(int64_t extent) const override {
        int64_t step = g_.warp;
        while (step > 1 && step > extent) step /= 2;
        return step;
    }
    int vector_width(int64_t extent) const override { return int(vector_granule(extent)); }
    int register_tile_accumulators(const RTile &tile, const RProgram &) const override {
        return int(register_tile_points(tile));
    }
    int register_tile_registers(const RTile &tile, const RProgram &) const override {
        // Accumulators, one operand value per register-tile row and column, and the
        // indices and addresses every kernel keeps (measured with ptxas -v on the
        // op library's kernels: about 24).
        int64_t operands = 0;
        for (size_t j = 0; j < tile.shape.size(); j++) {
            if (tile.shape[j] > 1) operands += tile.shape[j];
        }
        return int(register_tile_points(tile) + operands + kKernelRegisters);
    }
    bool register_tile_fits(const analysis::TensorExpr &, const RTile &tile, const RProgram &p) const override {
        return register_tile_registers(tile, p) <= g_.register_cap_per_thread;
    }
    int64_t storage_padding(int64_t row_elements, int element_bytes) const override {
        const int64_t row_bytes = row_elements * element_bytes, banks_bytes = int64_t(g_.shared_banks) * g_.bank_bytes;
        return row_elements > 1 && row_bytes % banks_bytes == 0 ? std::max<int64_t>(1, g_.bank_bytes / element_bytes) : 0;
    }

private:
    static constexpr int kKernelRegisters = 24;
    static int64_t register_tile_points(const RTile &tile) {
        int64_t n = 1;
        for (int64_t e : tile.shape) n *= e;
        return n;
    }
    const hal::GpuFigures &g_;
};

}  // namespace

std::unique_ptr<AlignmentPolicy> alignment_policy(const hal::DeviceSpec &d) {
    if (d.gpu) return std::make_unique<GpuAlignment>(d);
    internal_assert(d.arch == "x86") << "no alignment policy for " << d.arch << "\n";
    return std::make_unique<X86Alignment>(d);
}

}  // namespace tessera::rtile
