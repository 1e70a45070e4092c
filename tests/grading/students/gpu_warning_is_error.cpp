// gpu_warning_is_error: not an attack: a helper that returns nothing on one path, which nvcc only
// warns about and the kit's own g++ build of the GPU track (-Werror=return-type) refuses.

namespace hostile_23 {
ATTN_HOST_DEVICE inline std::int64_t checked_row(std::int64_t row) {
    if (row >= 0) return row;
}
}  // namespace hostile_23
