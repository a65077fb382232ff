# Thin wrapper over CMake. `make run` and `make test` first install what is missing.
# `make run` builds the product in $(BUILD), without the test programs (-DHALOX_TESTS=OFF); `make
# test` builds in $(TEST_BUILD) with the tests and their fault injection (-DHALOX_FAULT_INJECTION=ON),
# so the two never rebuild each other. Both end with the wall time of each stage.
BUILD      ?= build
TEST_BUILD ?= build-test
ASAN_BUILD ?= build-asan
CMAKE_ARGS ?=
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
# tests at a time: the MPI tests start several ranks each, and the GPU tests share the GPUs
TEST_JOBS  ?= 2

.PHONY: all build build-test deps deps-test run test test-suite test-fast test-asan info report clean

all: build

# What the library, the tool and the main job need (a compiler, CMake, MPI): only these stop a build
deps:
	@scripts/install_deps.sh run

# Also what the tests and front ends need, and the optional NVSHMEM wheel: each skipped with a note
# when it cannot be installed
deps-test:
	@scripts/install_deps.sh test
	@scripts/install_nvshmem.sh

$(BUILD)/Makefile: CMakeLists.txt
	cmake -S . -B $(BUILD) -DHALOX_FAULT_INJECTION=OFF -DHALOX_TESTS=OFF $(CMAKE_ARGS)

$(TEST_BUILD)/Makefile: CMakeLists.txt
	cmake -S . -B $(TEST_BUILD) -DHALOX_FAULT_INJECTION=ON $(CMAKE_ARGS)

build: $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS)

build-test: $(TEST_BUILD)/Makefile
	cmake --build $(TEST_BUILD) -j $(JOBS)

# The main job on an embedded default: every GPU if there are any, else the CPU cores.
run:
	@scripts/staged.sh "make run" install "$(MAKE) --no-print-directory deps" \
	    build "$(MAKE) --no-print-directory build" run "scripts/run_default.sh $(BUILD)/halox"

# The whole suite: unit, MPI bit-for-bit, bad-input and fault tests, then the sanitizer build.
test:
	@scripts/staged.sh "make test" install "$(MAKE) --no-print-directory deps-test" \
	    build "$(MAKE) --no-print-directory build-test" suite "$(MAKE) --no-print-directory test-suite" \
	    sanitizers "$(MAKE) --no-print-directory test-asan"

test-suite:
	cd $(TEST_BUILD) && ctest --output-on-failure -j $(TEST_JOBS)

test-fast: build-test
	cd $(TEST_BUILD) && ctest --output-on-failure -j 2 -L "unit|errors"

# AddressSanitizer + UndefinedBehaviorSanitizer over the unit tests, the emulated kernels and a few
# MPI runs, at -O1 -g: at -O0 the emulated kernels run three times as long, and -O2 compiles slower
ASAN_FLAGS = -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g"
test-asan:
	cmake -S . -B $(ASAN_BUILD) -DHALOX_SANITIZE=ON -DHALOX_CUDA=OFF $(ASAN_FLAGS) $(CMAKE_ARGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target test_programs
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(TEST_JOBS) -R "test_|mpi_np4|bad_inputs"

# A small sweep (depth x overlap x pattern; every transport on 2+ GPUs, else mpi on 2 CPU ranks) and
# a ping-pong, as CSV under $(BUILD)/report/, then `halox report` (plots + overlap coverage) there.
report: build
	@scripts/make_report.sh $(BUILD)

info: build
	@$(BUILD)/halox info

clean:
	rm -rf $(BUILD) $(TEST_BUILD) $(ASAN_BUILD)
