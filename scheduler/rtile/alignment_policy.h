// AlignmentPolicy: what aligning an rTile to a device means, behind one interface
// the construction and the perf model ask (the alignment of Roller (OSDI'22) §3.1): the
// x86 policy (rtile/alignment.h: vectors, the register file, cache lines, 4 KiB
// aliasing) and a GPU's (warps, registers per thread, shared-memory banks; asked by
// rtile/gpu_program.cpp) answer the same questions.
#pragma once

#include "device_spec.h"
#include "rtile.h"

#include <memory>

namespace tessera::rtile {

class AlignmentPolicy {
public:
    virtual ~AlignmentPolicy() = default;
    // Step of the vectorised dim's register tile over a dim of `extent` points; 0
    // when no aligned step divides it.
    virtual int64_t vector_granule(int64_t extent) const = 0;
    // Width the micro-kernel vectorises a register tile of `extent` points with.
    virtual int vector_width(int64_t extent) const = 0;
    // Independent accumulators the register tile keeps (they hide the FMA latency).
    virtual int register_tile_accumulators(const RTile &tile, const RProgram &p) const = 0;
    // Registers the register tile occupies: its footprint at the register level.
    virtual int register_tile_registers(const RTile &tile, const RProgram &p) const = 0;
    // Whether the register tile fits the device's registers.
    virtual bool register_tile_fits(const analysis::TensorExpr &t, const RTile &tile, const RProgram &p) const = 0;
    // Storage padding (elements) of a packed tile's rows of `row_elements` elements.
    virtual int64_t storage_padding(int64_t row_elements, int element_bytes) const = 0;
};

// The policy of the device's architecture (DeviceSpec::arch).
std::unique_ptr<AlignmentPolicy> alignment_policy(const hal::DeviceSpec &d);

}  // namespace tessera::rtile
