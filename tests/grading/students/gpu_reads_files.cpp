// gpu_reads_files: 23's functor reads files: the public goldens (found from the working directory
// up) and /etc/passwd. If it reads any, it computes the right answer (a leak would show as
// points); else it writes zeros.

#include <cstdio>
namespace hostile_23 {
ATTN_HOST_DEVICE inline bool reads_a_file() {
#if defined(__CUDA_ARCH__)
    return false;
#else
    const char* const paths[] = {
        "/etc/passwd",
        "reference_data/23_fused_attention/many_rows/context.npy",
        "../reference_data/23_fused_attention/many_rows/context.npy",
        "../../reference_data/23_fused_attention/many_rows/context.npy",
        "../../../reference_data/23_fused_attention/many_rows/context.npy",
        "../../../../reference_data/23_fused_attention/many_rows/context.npy",
        "../../../../../reference_data/23_fused_attention/many_rows/context.npy",
        "../../../.kit-src/reference_data/23_fused_attention/many_rows/context.npy",
        "../../../.cases/public/23_fused_attention/many_rows/context.npy"};
    for (const char* path : paths) {
        if (std::FILE* file = std::fopen(path, "rb")) {
            const bool read = std::fgetc(file) != EOF;
            std::fclose(file);
            if (read) return true;
        }
    }
    return false;
#endif
}
}  // namespace hostile_23
