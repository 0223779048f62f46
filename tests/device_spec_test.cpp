// Unit tests of the HAL (scheduler/hal/): memory layers of any count with their
// roles and the tile levels mapped onto them, core figures from the profile over
// the architecture's table, vector lanes from the element size, and the intensity
// query the graph layer classifies nodes with.
#include "device_spec.h"
#include "host_target.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace {

using namespace tessera;

const char *const kAvx2 = "x86-64-linux-avx-avx2-fma-f16c-sse41";
const char *const kAvx512 = "x86-64-linux-avx-avx2-f16c-fma-sse41-avx512-avx512_skylake";

hal::DeviceProfile profile(const std::string &file) {
    std::string error;
    auto p = hal::load_profile(std::string(TESSERA_TEST_PROFILES) + "/" + file, &error);
    if (!p) ADD_FAILURE() << error;
    return p ? *p : hal::builtin_profile();
}

std::string names(const hal::DeviceSpec &d) {
    std::string s;
    for (const hal::MemoryLayer &l : d.layers) s += (s.empty() ? "" : " ") + l.name;
    return s;
}

TEST(DeviceSpec, FourLayerProfileTilesRegistersL1AndL2) {
    const hal::DeviceSpec d = hal::make_device_spec(Halide::Target(kAvx512), 2, profile("avx512_xeon.json"));
    EXPECT_EQ(names(d), "registers L1 L2 LLC DRAM");
    EXPECT_EQ(d.tile_layer(0).name, "registers");
    EXPECT_EQ(d.tile_layer(1).name, "L1");
    EXPECT_EQ(d.tile_layer(2).name, "L2");
    EXPECT_EQ(d.outermost_cache().name, "LLC");
    EXPECT_EQ(d.layers[3].role, hal::MemoryRole::SharedCache);
    EXPECT_EQ(d.layers[3].capacity_bytes, 110100480 / 2);  // one core's share
    EXPECT_EQ(d.layers.back().role, hal::MemoryRole::Memory);
    EXPECT_EQ(d.vector_lanes, 16);
    EXPECT_EQ(d.layers[0].capacity_bytes, 32 * 64);  // 32 zmm registers
}

TEST(DeviceSpec, LayersOfAnyCountKeepTheirRoles) {
    // Three private caches and a shared one: the task tile goes to the outermost
    // private cache, the LLC share and DRAM stay outside it.
    const hal::DeviceSpec five = hal::make_device_spec(Halide::Target(kAvx2), 2, profile("five_layer_caches.json"));
    EXPECT_EQ(names(five), "registers L1 L2 L3 LLC DRAM");
    EXPECT_EQ(five.tile_layer(1).name, "L1");
    EXPECT_EQ(five.tile_layer(2).name, "L3");
    EXPECT_EQ(five.outermost_cache().name, "LLC");
    EXPECT_TRUE(five.beyond_llc(17e6));
    EXPECT_FALSE(five.beyond_llc(15e6));
    // One cache: both cache tiles live in it, DRAM right outside.
    const hal::DeviceSpec one = hal::make_device_spec(Halide::Target(kAvx2), 2, profile("one_cache.json"));
    EXPECT_EQ(names(one), "registers L1 DRAM");
    EXPECT_EQ(one.tile_layer(1).name, "L1");
    EXPECT_EQ(one.tile_layer(2).name, "L1");
    EXPECT_EQ(one.outermost_cache().name, "L1");
}

TEST(DeviceSpec, ProfileCoreFiguresOverrideTheArchitecturesTable) {
    const hal::DeviceSpec table = hal::make_device_spec(Halide::Target(kAvx2), 2, profile("avx2_zen3.json"));
    EXPECT_EQ(table.fma_pipes, 2);
    EXPECT_EQ(table.fma_latency, 4);
    EXPECT_EQ(table.vector_registers, 16);
    const hal::DeviceSpec own = hal::make_device_spec(Halide::Target(kAvx2), 2, profile("five_layer_caches.json"));
    EXPECT_EQ(own.fma_pipes, 4);
    EXPECT_EQ(own.fma_latency, 3);
    EXPECT_EQ(own.min_accumulators(), 12);
    EXPECT_EQ(own.vector_registers, 16);  // not in the profile: the table's
}

TEST(DeviceSpec, BroadcastRateFromTheIsaOrTheProfile) {
    hal::DeviceProfile p = profile("avx2_zen3.json");
    // AVX2 broadcasts are instructions of their own, about one per cycle; AVX-512
    // folds them into its FMAs: as any load (0).
    EXPECT_EQ(hal::make_device_spec(Halide::Target(kAvx2), 2, p).broadcasts_per_cycle, 1.0);
    EXPECT_EQ(hal::make_device_spec(Halide::Target(kAvx512), 2, p).broadcasts_per_cycle, 0);
    // A profile's figure overrides the table, saved and loaded back; past 16 is rejected.
    p.broadcasts_per_cycle = 2.5;
    EXPECT_DOUBLE_EQ(hal::make_device_spec(Halide::Target(kAvx2), 2, p).broadcasts_per_cycle, 2.5);
    const std::string path = testing::TempDir() + "/broadcast_rate.json";
    hal::save_profile(p, path);
    std::string error;
    const std::optional<hal::DeviceProfile> back = hal::load_profile(path, &error);
    ASSERT_TRUE(back.has_value()) << error;
    EXPECT_DOUBLE_EQ(back->broadcasts_per_cycle, 2.5);
    p.broadcasts_per_cycle = 17;
    hal::save_profile(p, path);
    EXPECT_FALSE(hal::load_profile(path, &error).has_value());
    EXPECT_NE(error.find("broadcasts_per_cycle"), std::string::npos) << error;
}

TEST(DeviceSpec, LanesComeFromTheElementSize) {
    const hal::DeviceProfile p = profile("avx2_zen3.json");
    EXPECT_EQ(hal::make_device_spec(Halide::Target(kAvx2), 2, p, 4).vector_lanes, 8);
    EXPECT_EQ(hal::make_device_spec(Halide::Target(kAvx2), 2, p, 2).vector_lanes, 16);
    EXPECT_EQ(hal::make_device_spec(Halide::Target(kAvx512), 2, p, 8).vector_lanes, 8);
    // A target naming avx2 but not avx still has 256-bit vectors.
    EXPECT_EQ(hal::make_device_spec(Halide::Target("x86-64-linux-avx2-fma"), 2, p).vector_lanes, 8);
}

TEST(DeviceSpec, ProfilesWithMisplacedLayersAreRejected) {
    // Written to a temporary file: DRAM not last, a shared cache not last among the caches.
    for (const std::string layers :
         {R"([{"name": "L1", "capacity_bytes": 1, "read_gbs_per_core": 1, "read_gbs_all_cores": 1}])",
          R"([{"name": "DRAM", "capacity_bytes": 0, "read_gbs_per_core": 1, "read_gbs_all_cores": 1},
              {"name": "L1", "capacity_bytes": 1, "read_gbs_per_core": 1, "read_gbs_all_cores": 1}])",
          R"([{"name": "LLC", "capacity_bytes": 1, "read_gbs_per_core": 1, "read_gbs_all_cores": 1},
              {"name": "L2", "capacity_bytes": 1, "read_gbs_per_core": 1, "read_gbs_all_cores": 1},
              {"name": "DRAM", "capacity_bytes": 0, "read_gbs_per_core": 1, "read_gbs_all_cores": 1}])",
          R"([{"name": "L1", "capacity_bytes": 1, "read_gbs_per_core": 1, "read_gbs_all_cores": 1},
              {"name": "L1", "capacity_bytes": 1, "read_gbs_per_core": 1, "read_gbs_all_cores": 1},
              {"name": "DRAM", "capacity_bytes": 0, "read_gbs_per_core": 1, "read_gbs_all_cores": 1}])"}) {
        const std::string path = testing::TempDir() + "/bad_layers.json";
        FILE *f = std::fopen(path.c_str(), "w");
        ASSERT_NE(f, nullptr);
        std::fprintf(f, R"({"version": 1, "cores": 2, "vector_lanes_fp32": 8, "fma_gflops_per_core": 10,
                            "dram_copy_gbs": 5, "layers": %s})", layers.c_str());
        std::fclose(f);
        std::string error;
        EXPECT_FALSE(hal::load_profile(path, &error).has_value()) << layers;
        EXPECT_NE(error.find("layers must be one or more caches"), std::string::npos) << error;
    }
}

TEST(DeviceSpec, ComputeBoundIsIntensityAgainstTheBalance) {
    const double balance = hal::balance_flops_per_byte(profile("avx2_zen3.json"));  // 2 x 127.5 / 25.4
    EXPECT_NEAR(balance, 10.04, 0.01);
    EXPECT_TRUE(hal::compute_bound(2.0 * 512 * 512 * 512, 3.0 * 512 * 512 * 4, balance));  // a GEMM: 85 FLOP/B
    EXPECT_FALSE(hal::compute_bound(1e6, 8e6, balance));                                   // an add: 0.125 FLOP/B
    EXPECT_FALSE(hal::compute_bound(1e6, 0, balance));
}

// This CPU's flags as Linux reports them (/proc/cpuinfo), a source apart from the
// CPUID query host_target.cpp makes.
bool cpuinfo_flag(const std::string &flag) {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("flags", 0) == 0) return (line + " ").find(" " + flag + " ") != std::string::npos;
    }
    return false;
}

// Halide 14 names AMD Zen 4 avx512_sapphirerapids, whose LLVM CPU emits VEX AVX-VNNI
// that Zen 4 cannot run (a ScatterND's index arithmetic crashed with SIGILL).
TEST(HostTarget, KeepsSapphireRapidsOnlyWhereTheCpuHasAvxVnni) {
    const Halide::Target spr("x86-64-linux-avx-avx2-f16c-fma-sse41-avx512-avx512_skylake-avx512_cannonlake-"
                             "avx512_sapphirerapids");
    const Halide::Target here = hal::runnable_here(spr);
    EXPECT_EQ(here.has_feature(Halide::Target::AVX512_SapphireRapids), cpuinfo_flag("avx_vnni")) << here.to_string();
    EXPECT_TRUE(here.has_feature(Halide::Target::AVX512_Cannonlake)) << here.to_string();
    const Halide::Target skylake(kAvx512);
    EXPECT_EQ(hal::runnable_here(skylake), skylake);
    EXPECT_EQ(hal::host_target().has_feature(Halide::Target::AVX512_SapphireRapids) && !cpuinfo_flag("avx_vnni"), false);
}

}  // namespace
