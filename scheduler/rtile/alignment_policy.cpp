#include "alignment_policy.h"

#include "alignment.h"
#include "diagnostics.h"

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

}  // namespace

std::unique_ptr<AlignmentPolicy> alignment_policy(const hal::DeviceSpec &d) {
    internal_assert(d.arch == "x86") << "no alignment policy for " << d.arch << "\n";
    return std::make_unique<X86Alignment>(d);
}

}  // namespace tessera::rtile
