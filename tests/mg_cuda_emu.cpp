// halox mg's CUDA kernels (apps/mg/mg_cuda.cu) compiled as host C++ through tests/emu/mg_cuda_emu.h:
// every kernel runs sequentially, thread by thread, on host memory (see tests/mg.sh).
#define MG_CUDA_EMULATE
#include "../apps/mg/mg_cuda.cu"
