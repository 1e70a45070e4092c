// gpu_hogs_device: CUDA kits only: a static initializer takes every byte of device memory it can
// and never frees it; the test's own allocations then fail.

#if defined(__CUDACC__)
#include <cuda_runtime.h>
namespace hostile_23 {
int take_all_device_memory() {
    std::size_t chunk = std::size_t{1} << 30;
    void* taken = nullptr;
    while (chunk >= (std::size_t{1} << 20)) {
        if (cudaMalloc(&taken, chunk) != cudaSuccess) chunk /= 2;  // never freed
    }
    return 0;
}
[[maybe_unused]] const int device_memory_taken = take_all_device_memory();
}  // namespace hostile_23
#endif
