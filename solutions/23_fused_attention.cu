// solutions/23_fused_attention.cu — Exercise 23: fused causal attention, one Thrust functor per
// query row (the GPU track).
//
// The notebook cell it fuses, In [36] of the book's chapter 3 notebook:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   attn_scores = queries @ keys.transpose(2, 3)           # (b, num_heads, T, T)
//   attn_scores.masked_fill_(mask_bool, -torch.inf)
//   attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
//   context_vec = attn_weights @ values                    # (b, num_heads, T, head_dim)
// Declared in include/attn/fused_attention.hpp. Check your work: `tools/kit check 23`. Stuck?
// `tools/kit hint 23`. One source, two backends: nvcc compiles this file for CUDA, g++ for
// Thrust's OpenMP backend (the default build), so it runs on the CPU's cores too.
//
// Goal: context[b, h, t] for every query row in one pass over its keys, never holding a row
// of T scores. Softmax needs the row's maximum before the first exp, so keep a RUNNING one
// (online softmax): with m the maximum so far, l the sum of exp(score - m) so far and acc the
// sum of exp(score - m) * value so far, a new key j with score s does
//   m_new = max(m, s);  c = exp(m - m_new)            (rescales what was summed under old m)
//   l = l * c + exp(s - m_new);  acc = acc * c + exp(s - m_new) * v_j;  m = m_new
// and at the end context = acc / l. Causal: row t reads keys 0..t only (the mask's -inf
// entries are the keys it never reads). Scores are q . k_j / sqrt(head_dim).
// Worked example, one head, head_dim 1, q = k = [[0], [1]] scaled by 1/sqrt(1), v = [[2], [4]]:
//   row 0 sees key 0 only: context 2.
//   row 1: scores [0, 1]; softmax [0.2689, 0.7311]; context 0.2689 * 2 + 0.7311 * 4 = 3.4621.
// Rows run at the same time, on the CPU's threads (OpenMP) or a GPU's: keep a row's running
// values in local variables of operator() and write only context[row]; a buffer shared by the
// rows is written by two threads at once (the tests run a large case twice and compare). Device
// code has no std::vector, std::string, exceptions or std::getenv: the OpenMP build runs them,
// nvcc refuses them, and `tools/kit check 23` names such a line on a machine without nvcc.
#include "attn/arguments_gpu.hpp"
#include "attn/errors.hpp"
#include "attn/fused_attention.hpp"

#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include <cmath>
#include <cstdint>
#include <string>

namespace attn::gpu {

namespace {

// One query row's causal attention: operator()(row) writes context[row]. Rows are
// independent, so thrust::for_each may run them all at once, on any number of threads.
struct CausalRowAttention {
    const float* queries;  // (B, heads, T, head_dim)
    const float* keys;
    const float* values;
    float* context;
    HeadsShape shape;
    float scale;  // 1 / sqrt(head_dim)

    ATTN_HOST_DEVICE void operator()(std::int64_t row) const {
        const std::int64_t head_dim = shape.head_dim, t = row % shape.tokens;
        const std::int64_t first_row = row - t;  // token 0 of this row's (b, h)
        const float* query_t = queries + row * head_dim;
        float* context_t = context + row * head_dim;
        for (std::int64_t k = 0; k < head_dim; ++k) context_t[k] = 0.0f;

        float running_max = -INFINITY, running_sum = 0.0f;
        for (std::int64_t j = 0; j <= t; ++j) {  // causal: keys 0..t
            const float* key_j = keys + (first_row + j) * head_dim;
            const float* value_j = values + (first_row + j) * head_dim;
            float score = 0.0f;
            for (std::int64_t k = 0; k < head_dim; ++k) score += query_t[k] * key_j[k];
            score *= scale;

            const float new_max = fmaxf(running_max, score);
            const float correction = expf(running_max - new_max);  // 0 at j = 0: exp(-inf)
            const float weight = expf(score - new_max);
            running_sum = running_sum * correction + weight;
            for (std::int64_t k = 0; k < head_dim; ++k)
                context_t[k] = context_t[k] * correction + weight * value_j[k];
            running_max = new_max;
        }
        for (std::int64_t k = 0; k < head_dim; ++k) context_t[k] /= running_sum;
    }
};

}  // namespace

void fused_causal_attention(const float* queries, const float* keys, const float* values,
                            float* context, const HeadsShape& shape) {
    arguments::fused_causal_attention(shape);  // bad input -> a clear error

    const float scale = 1.0f / sqrtf(static_cast<float>(shape.head_dim));
    thrust::for_each(thrust::device, thrust::counting_iterator<std::int64_t>(0),
                     thrust::counting_iterator<std::int64_t>(shape.rows()),
                     CausalRowAttention{queries, keys, values, context, shape, scale});
}

}  // namespace attn::gpu
