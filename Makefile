# Thin wrapper over CMake. `make run` and `make test` first install what is missing.
# `make run` builds the product in $(BUILD); `make test` builds in $(TEST_BUILD) with the tests'
# fault injection compiled in (-DHALOX_FAULT_INJECTION=ON), so the two never rebuild each other.
BUILD      ?= build
TEST_BUILD ?= build-test
ASAN_BUILD ?= build-asan
CMAKE_ARGS ?=
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all build build-test deps run test test-fast test-asan info report clean

all: build

deps:
	@scripts/install_deps.sh
	@scripts/install_nvshmem.sh

$(BUILD)/Makefile: CMakeLists.txt
	cmake -S . -B $(BUILD) -DHALOX_FAULT_INJECTION=OFF $(CMAKE_ARGS)

$(TEST_BUILD)/Makefile: CMakeLists.txt
	cmake -S . -B $(TEST_BUILD) -DHALOX_FAULT_INJECTION=ON $(CMAKE_ARGS)

build: $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS)

build-test: $(TEST_BUILD)/Makefile
	cmake --build $(TEST_BUILD) -j $(JOBS)

# The main job on an embedded default: every GPU if there are any, else the CPU cores.
run: deps
	@$(MAKE) --no-print-directory build
	@scripts/run_default.sh $(BUILD)/halox

# The whole suite: unit, MPI bit-for-bit, bad-input and fault tests, then the sanitizer build.
test: deps
	@$(MAKE) --no-print-directory build-test
	cd $(TEST_BUILD) && ctest --output-on-failure -j 2
	@$(MAKE) --no-print-directory test-asan

test-fast: build-test
	cd $(TEST_BUILD) && ctest --output-on-failure -j 2 -L "unit|errors"

# AddressSanitizer + UndefinedBehaviorSanitizer over the unit tests and a few MPI runs.
test-asan:
	cmake -S . -B $(ASAN_BUILD) -DHALOX_SANITIZE=ON -DHALOX_CUDA=OFF -DCMAKE_BUILD_TYPE=Debug $(CMAKE_ARGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -R "test_|mpi_np4|bad_inputs"

# A small sweep (depth x overlap x pattern; every transport on 2+ GPUs, else mpi on 2 CPU ranks) and
# a ping-pong, as CSV under $(BUILD)/report/, then `halox report` (plots + overlap coverage) there.
report: build
	@scripts/make_report.sh $(BUILD)

info: build
	@$(BUILD)/halox info

clean:
	rm -rf $(BUILD) $(TEST_BUILD) $(ASAN_BUILD)
