// gpu_threads_past_limit: each row of 23 opens its own team of 100 OpenMP threads (nesting
// allowed): two rows at once would ask for 200, past the sandbox's 64 processes and threads.
// The grader's OMP_THREAD_LIMIT=2 gives each of those teams one thread.

#if defined(_OPENMP)
#include <omp.h>
#endif
namespace hostile_23 {
ATTN_HOST_DEVICE inline void more_threads() {
#if defined(_OPENMP) && !defined(__CUDA_ARCH__)
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(100)
    { [[maybe_unused]] volatile int busy = omp_get_thread_num(); }
#endif
}
}  // namespace hostile_23
