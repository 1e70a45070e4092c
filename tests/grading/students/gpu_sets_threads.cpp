// gpu_sets_threads: OMP_NUM_THREADS=1000 from a static initializer (libgomp read it before) and
// omp_set_num_threads(16) before 23's kernel: the grader's OMP_THREAD_LIMIT=2 still holds it.

#include <cstdlib>
#if defined(_OPENMP)
#include <omp.h>
#endif
namespace hostile_23 {
[[maybe_unused]] const int environment_set = setenv("OMP_NUM_THREADS", "1000", 1);
inline void set_threads() {
#if defined(_OPENMP)
    omp_set_num_threads(16);
#endif
}
}  // namespace hostile_23
