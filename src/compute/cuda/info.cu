/* What `halox info` and backend selection ask of CUDA: whether it is built, how many GPUs, their names and PCI bus ids, and the info lines. */
#include <stdio.h>

#include "compute/cuda/ops.h"

extern "C" int hx_cuda_built(void) { return 1; }

extern "C" int hx_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); /* no driver or no device: clear the sticky state */
        return 0;
    }
    return n;
}

extern "C" int hx_cuda_max_smem(int device)
{
    int most = 0;
    if (cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return most;
}

extern "C" void hx_cuda_device_name(int device, char *name, size_t n)
{
    if (!n) return;
    name[0] = 0;
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, device) != cudaSuccess) {
        cudaGetLastError(); /* "" says it could not be read; a later launch check must not see this */
        return;
    }
    snprintf(name, n, "%s", p.name);
}

extern "C" void hx_cuda_device_pci(int device, char *bus, size_t n)
{
    if (!n) return;
    bus[0] = 0;
    if (n > 1 && cudaDeviceGetPCIBusId(bus, (int)n, device) != cudaSuccess) {
        cudaGetLastError(); /* "" says it could not be read */
        bus[0] = 0;
    }
}

/* major.minor of a CUDA version number, or "?" when the query failed */
static const char *version(char *buf, size_t n, cudaError_t e, int v)
{
    if (e != cudaSuccess) {
        cudaGetLastError();
        return "?";
    }
    snprintf(buf, n, "%d.%d", v / 1000, (v % 1000) / 10);
    return buf;
}

extern "C" void hx_cuda_print_info(FILE *out)
{
    int drv = 0, rt = 0, n = hx_cuda_device_count();
    char rts[32], drvs[32];
    const cudaError_t erv = cudaDriverGetVersion(&drv), ert = cudaRuntimeGetVersion(&rt);
    fprintf(out, "cuda       runtime %s, driver %s, built for sm_%s, %d GPU%s visible\n", version(rts, sizeof rts, ert, rt),
            version(drvs, sizeof drvs, erv, drv), HALOX_CUDA_ARCHS, n, n == 1 ? "" : "s");
    for (int i = 0; i < n; i++) {
        cudaDeviceProp p;
        const cudaError_t e = cudaGetDeviceProperties(&p, i);
        if (e != cudaSuccess) {
            cudaGetLastError();
            fprintf(out, "  GPU %d    properties unavailable: %s\n", i, cudaGetErrorString(e));
            continue;
        }
        fprintf(out, "  GPU %d    %s, %.1f GiB, %d SMs, cc %d.%d, PCI %04x:%02x:%02x\n", i, p.name,
                (double)p.totalGlobalMem / (1 << 30), p.multiProcessorCount, p.major, p.minor, p.pciDomainID,
                p.pciBusID, p.pciDeviceID);
    }
    if (n > 1) {
        fprintf(out, "  peer access (row can read/write column):\n        ");
        for (int j = 0; j < n; j++) fprintf(out, " %3d", j);
        fprintf(out, "\n");
        for (int i = 0; i < n; i++) {
            fprintf(out, "    %3d ", i);
            for (int j = 0; j < n; j++) {
                int ok = 0;
                cudaError_t e = cudaSuccess;
                if (i != j) e = cudaDeviceCanAccessPeer(&ok, i, j);
                if (e != cudaSuccess) cudaGetLastError();
                fprintf(out, " %3s", i == j ? "-" : e != cudaSuccess ? "?" : ok ? "yes" : "no");
            }
            fprintf(out, "\n");
        }
    }
}
