# Thin wrapper around CMake. Every target first makes sure the Debian packages
# are installed (scripts/install-deps.sh is idempotent), then builds in build/.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build test run clean

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja $(CMAKE_FLAGS) > $(BUILD_DIR).configure.log 2>&1 || (cat $(BUILD_DIR).configure.log; exit 1)
	@grep -E "^-- (Halide|oneDNN|OpenCL|CUDA|AOT)" $(BUILD_DIR).configure.log || true

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# The README's test command: every GoogleTest case through CTest.
test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# The main job: the default suite, JIT-compiled, checked and timed.
run: build
	@$(BUILD_DIR)/apps/tessera-suite $(ARGS)

clean:
	@rm -rf $(BUILD_DIR) $(BUILD_DIR).configure.log
