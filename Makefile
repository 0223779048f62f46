# Thin wrapper around CMake. Every target first makes sure the Debian packages
# are installed (scripts/install-deps.sh is idempotent), then builds in build/.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build test run bench clean

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

# The main job: the default suite, JIT-compiled, checked and timed.
run: build
	@$(BUILD_DIR)/apps/tessera-suite $(ARGS)

# Halide's autoschedulers (and Tessera's) against oneDNN on the default suite; the
# device profile is measured once first (tessera-profile) if there is none.
bench: build
	@$(BUILD_DIR)/apps/profile/tessera-profile --if-missing
	@mkdir -p $(BUILD_DIR)/bench
	@# Adams2019's default beam of 32 searches for minutes per convolution: greedy unless set.
	@HL_BEAM_SIZE=$${HL_BEAM_SIZE:-1} $(BUILD_DIR)/apps/bench/tessera-bench --suite default --json $(BUILD_DIR)/bench/report.json \
		--plot $(BUILD_DIR)/bench/report.png $(ARGS)

clean:
	@rm -rf $(BUILD_DIR) $(BUILD_DIR).configure.log
