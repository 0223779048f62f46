// The GPU HAL: per-SM figures of CUDA compute capabilities and of OpenCL devices
// (hal/gpu_device.cpp has the table and its sources), turned into a DeviceSpec
// whose layers are registers -> shared memory -> L2 -> DRAM and whose `gpu` field
// carries what GPU schedules are built from (warps, banks, transactions, caps).
#pragma once

#include "device_spec.h"

#include <optional>
#include <string>

namespace tessera::hal {

// The built-in figures for a CUDA compute capability (75, 80, 86, 89, 90; a lower
// or unknown one gets the nearest entry below it, or 75's). A representative part
// supplies the chip-wide figures (SM count, clock, L2, DRAM bandwidth).
GpuFigures cuda_figures(int capability);
// A generic discrete OpenCL GPU (the smallest figures common to the CUDA table).
GpuFigures opencl_gpu_figures();
// PoCL's CPU device as clGetDeviceInfo reports it (one compute unit per core).
GpuFigures pocl_cpu_figures(int cores);

// The figures for `target` (a CUDA or OpenCL target): the table's, or those
// `profile` names: "pocl-cpu", "opencl-gpu", "cuda-sm<NN>", or a JSON file whose
// fields override the table's (`figures_field_names()`). A bad profile is a user
// error naming the file and the field.
GpuFigures gpu_figures_for_target(const Halide::Target &target, const std::string &profile = "");
// Reads a GPU profile JSON over `base`; nullopt and *error on failure.
std::optional<GpuFigures> load_gpu_profile(const std::string &path, const GpuFigures &base, std::string *error);

// The GPU's balance: peak FLOP/s over DRAM bandwidth, in FLOP per byte (what the
// graph layer classifies nodes against, as hal::balance_flops_per_byte on a CPU).
double balance_flops_per_byte(const GpuFigures &g);

DeviceSpec make_gpu_device_spec(const Halide::Target &target, const GpuFigures &figures, int element_bytes);

}  // namespace tessera::hal
