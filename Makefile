# Thin wrapper around CMake. Every target first makes sure the Debian packages
# are installed (scripts/install-deps.sh is idempotent), then builds in build/.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build test test-sanitize run run-ops models zoo bench fuzz-graphs clean

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja $(CMAKE_FLAGS) > $(BUILD_DIR).configure.log 2>&1 || (cat $(BUILD_DIR).configure.log; exit 1)
	@grep -E "^-- (Halide|oneDNN|OpenCL|CUDA|cuDNN|AOT)" $(BUILD_DIR).configure.log || true

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# The README's test command: every GoogleTest case through CTest.
test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# AddressSanitizer + UndefinedBehaviorSanitizer build (clang-14) in build-sanitize/,
# the sanitizer-labelled tests and the fuzz targets (tests/sanitize/, tests/fuzz/).
test-sanitize: deps
	@CMAKE_FLAGS="$(CMAKE_FLAGS)" bash scripts/test-sanitize.sh

# The main job: two small models generated here (a CNN and a transformer block),
# compiled to libraries, run, checked against the reference evaluator and timed,
# fused and with --no-fusion (scripts/run-demo.sh).
run: build
	@bash scripts/run-demo.sh $(BUILD_DIR)

# The operator suite, JIT-compiled, checked and timed (tessera-suite).
run-ops: build
	@$(BUILD_DIR)/apps/tessera-suite $(ARGS)

# ResNet-18/50, MobileNetV2 and a BERT-base encoder layer exported with Debian's
# python3-torch into models/, each with an input and PyTorch's output (not needed by
# make test; installs python3-torch and python3-torchvision first).
models: deps
	@bash scripts/install-deps.sh --models
	@/usr/bin/python3 scripts/export-models.py --out models

# Halide's autoschedulers (and Tessera's) against oneDNN on the default suite; the
# device profile is measured once first (tessera-profile) if there is none.
bench: build
	@$(BUILD_DIR)/apps/profile/tessera-profile --if-missing
	@mkdir -p $(BUILD_DIR)/bench
	@# Adams2019's default beam of 32 searches for minutes per convolution: greedy unless set.
	@HL_BEAM_SIZE=$${HL_BEAM_SIZE:-1} $(BUILD_DIR)/apps/bench/tessera-bench --suite default --json $(BUILD_DIR)/bench/report.json \
		--plot $(BUILD_DIR)/bench/report.png $(ARGS)

# Random-graph differential testing beyond make test's 40 graphs: N graphs from seed
# SEED (default 1), each compiled fused and unfused against the reference evaluator.
N ?= 500
SEED ?= 1
fuzz-graphs: build
	@TESSERA_FUZZ_GRAPHS=$(N) TESSERA_FUZZ_SEED=$(SEED) $(BUILD_DIR)/tests/graph/tessera_graph_lower_tests \
		--gtest_filter='RandomGraphs.*'

# The model zoo check (not part of make test): every torchvision classification model and
# a few segmentation bodies exported, compiled, run against PyTorch and tabulated in
# zoo/zoo.md. ARGS go to scripts/zoo.py (--only NAME,..., --skip NAME,..., --threads T).
zoo: build
	@bash scripts/install-deps.sh --models
	@/usr/bin/python3 scripts/zoo.py --out zoo $(ARGS)

clean:
	@rm -rf $(BUILD_DIR) $(BUILD_DIR).configure.log
