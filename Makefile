# Thin wrapper over CMake. `make run` and `make test` first install what is missing.
BUILD      ?= build
ASAN_BUILD ?= build-asan
CMAKE_ARGS ?=
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all build deps run test test-fast test-asan info report clean

all: build

deps:
	@scripts/install_deps.sh
	@scripts/install_nvshmem.sh

$(BUILD)/Makefile: CMakeLists.txt
	cmake -S . -B $(BUILD) $(CMAKE_ARGS)

build: $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS)

# The main job on an embedded default: every GPU if there are any, else the CPU cores.
run: deps
	@$(MAKE) --no-print-directory build
	@scripts/run_default.sh $(BUILD)/halox

# The whole suite: unit, MPI bit-for-bit and bad-input tests, then the sanitizer build.
test: deps
	@$(MAKE) --no-print-directory build
	cd $(BUILD) && ctest --output-on-failure -j 2
	@$(MAKE) --no-print-directory test-asan

test-fast: build
	cd $(BUILD) && ctest --output-on-failure -j 2 -L "unit|errors"

# AddressSanitizer + UndefinedBehaviorSanitizer over the unit tests and a few MPI runs.
test-asan:
	cmake -S . -B $(ASAN_BUILD) -DHALOX_SANITIZE=ON -DHALOX_CUDA=OFF -DCMAKE_BUILD_TYPE=Debug $(CMAKE_ARGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -R "test_|mpi_np4|bad_inputs"

# A small sweep (depth x overlap x pattern; every transport on 2+ GPUs, else mpi on 2 CPU ranks) and
# a ping-pong, as CSV under $(BUILD)/report/, then `halox report` (plots + overlap coverage) there.
report: build
	@mkdir -p $(BUILD)/report
	@set -e; export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
	    OMPI_MCA_btl_vader_single_copy_mechanism=none OMP_NUM_THREADS=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1; \
	gpus=$$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true); \
	if [ "$${gpus:-0}" -ge 2 ] && $(BUILD)/halox info 2>/dev/null | grep -q '^backends .*cuda'; then \
	    np=$$gpus be=cuda size=4096x4096 tr=all; else np=2 be=cpu size=512x512 tr=mpi; fi; \
	echo "== halox run sweep: $$np ranks, backend $$be, $$size, transport $$tr -> $(BUILD)/report/run.csv"; \
	mpirun -np $$np $(BUILD)/halox run --backend $$be --size $$size --iters 40 --warmup 4 --repeat 3 --depth 1,2,4,8 \
	    --overlap=on,off --pattern staged,direct --desync-barrier --transport $$tr --format csv > $(BUILD)/report/run.csv; \
	echo "== halox pingpong: 2 ranks, backend $$be, 8 B to 4 MiB -> $(BUILD)/report/pingpong.csv"; \
	mpirun -np 2 $(BUILD)/halox pingpong --backend $$be --max-bytes 4194304 --iters 300 --large-iters 30 \
	    --format csv --quiet > $(BUILD)/report/pingpong.csv; \
	$(BUILD)/halox report $(BUILD)/report/run.csv $(BUILD)/report/pingpong.csv --out $(BUILD)/report

info: build
	@$(BUILD)/halox info

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
