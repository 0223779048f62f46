// DeviceProfile: measured figures of a CPU (peak FMA throughput and bandwidth of
// every memory layer), written by `tessera-profile` as JSON and passed to the
// scheduler's HAL (SchedulerOptions) and to tessera-bench. Without a profile,
// conservative built-in figures are used (cache sizes still come from sysfs).
// Which file the tools read is decided at their edge (options_from_environment.h).
#pragma once

#include "model_calibration.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tessera::hal {

struct MemoryLayerProfile {
    std::string name;              // "L1", "L2", "LLC", "DRAM"
    uint64_t capacity_bytes = 0;   // per core for private caches, whole chip for LLC; 0 for DRAM
    double read_gbs_per_core = 0;  // one thread reading a buffer that fits this layer
    double read_gbs_all_cores = 0; // every core reading at once (what is shared gets split)
};

// The revision of tessera-profile's FMA peak loop: 2 keeps every chain it counts.
constexpr int kFmaPeakRevision = 2;

struct DeviceProfile {
    int version = 1;
    std::string source;  // "measured" (tessera-profile) or "built-in"
    std::string cpu_model;
    int cores = 1;
    int vector_lanes_fp32 = 8;          // 16 with AVX-512, 8 with AVX2
    double fma_gflops_per_core = 0;     // measured fp32 peak, an FMA counted as 2 flops
    // Registers excluded; caches innermost first ("L1", "L2", ...; a shared last
    // level named "LLC"), "DRAM" last. Any number of caches.
    std::vector<MemoryLayerProfile> layers;
    double dram_copy_gbs = 0;           // all cores copying: bytes read + bytes written per second
    // All cores transposing matrices past the LLC with a hand-written blocked kernel,
    // bytes read + written per second: what a 2-D transpose can reach here. 0 when
    // not measured (built-in figures, profiles written before it was measured).
    double dram_transpose_gbs = 0;
    // Core figures that override the architecture's table in the HAL (hal/x86_device.cpp)
    // when set (0: not set): a core with more FMA pipes, another latency, a
    // larger register file.
    int fma_pipes = 0;
    int fma_latency = 0;
    int vector_registers = 0;
    int row_address_registers = 0;
    // Which revision of tessera-profile's FMA loop measured fma_gflops_per_core
    // (kFmaPeakRevision); 0 for profiles written before it was recorded, whose loop
    // ran one FMA chain where it counted twelve: a peak 1.5-3x too high.
    int fma_peak_revision = 0;
    // Broadcasts from memory a core issues per cycle beside its FMAs, over the
    // architecture's table (hal/x86_device.cpp: one with AVX2) when set (0: not set).
    double broadcasts_per_cycle = 0;
    // Factors fitted to this machine's measurements (tessera-profile --calibrate);
    // empty: the performance model as built.
    ModelCalibration calibration;

    const MemoryLayerProfile *layer(const std::string &name) const;
};

// Whether `p` is a measured profile whose peak the old, merged FMA loop measured.
bool peak_measured_by_an_old_loop(const DeviceProfile &p);

// Cache capacities from sysfs, core count and vector width of this host, and
// deliberately modest throughput figures.
DeviceProfile builtin_profile();

// Reads a profile; on failure returns nullopt and says why in *error.
std::optional<DeviceProfile> load_profile(const std::string &path, std::string *error);
// Writes a profile (creating the parent folder); throws std::runtime_error on failure.
void save_profile(const DeviceProfile &profile, const std::string &path);

// 16 hex digits that identify the figures (a hash of the profile as save_profile
// writes it): recorded in every emitted schedule, so a schedule names the profile
// it was built for.
std::string profile_fingerprint(const DeviceProfile &profile);
// The fingerprint of the measured figures alone (the calibration left out): what a
// tuning log's measurements were made under, whichever calibration ranked them.
std::string figures_fingerprint(const DeviceProfile &profile);

// The device's balance: peak FLOP/s of all cores over DRAM copy bandwidth, in FLOP
// per byte. A kernel whose arithmetic intensity is below it waits on memory; the
// graph layer's fusion plan classifies nodes against it.
double balance_flops_per_byte(const DeviceProfile &profile);

// Whether a kernel of `flops` arithmetic operations over `bytes` of compulsory DRAM
// traffic is compute-bound on a device of this balance (its intensity reaches it).
bool compute_bound(double flops, double bytes, double balance_flops_per_byte);

}  // namespace tessera::hal
