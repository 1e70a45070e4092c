// calls_fast_kernel_23: 23's host function hands the work to the kit's own fast CUDA kernel
// instead of launching the student's functor. On the OpenMP backend that kernel throws, so it
// scored 0 there; on a CUDA kit it would have scored full marks. The kit's fast kernel is in a
// library of its own that no exercise's program links: the call does not link. Its header is
// not on a student's include path either, so the student declares the function, as one who
// read the kit's sources would.

#include "attn/fused_attention.hpp"

namespace attn::gpu {
void fast_causal_attention(const float* queries, const float* keys, const float* values,
                           float* context, const HeadsShape& shape);
}  // namespace attn::gpu

namespace hostile_23 {

void fast(const float* queries, const float* keys, const float* values, float* context,
          const attn::gpu::HeadsShape& shape) {
    attn::gpu::fast_causal_attention(queries, keys, values, context, shape);
}

}  // namespace hostile_23
