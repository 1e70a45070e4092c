// exercises/23_fused_attention.cu — Exercise 23: fused causal attention, one Thrust functor per
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
// entries are the keys it never reads).
// The maths, shapes and the notebook's values: include/attn/fused_attention.hpp, Exercise 23.
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

    ATTN_HOST_DEVICE void operator()([[maybe_unused]] std::int64_t row) const {
        // TODO 1. t = row % T, the row's token; first = row - t, its (b, h) block's first row.
        //      2. running_max = -INFINITY, running_sum = 0, context[row] = 0.
        //      3. For each key j <= t (row first + j): s = q_t . k_j * scale, then the
        //         online-softmax update above of running_max, running_sum and context[row].
        //      4. context[row] /= running_sum.
        // expf, fmaxf and INFINITY work on both backends; std::vector and exceptions do not
        // exist on a GPU.
    }
};

}  // namespace

void fused_causal_attention([[maybe_unused]] const float* queries,
                            [[maybe_unused]] const float* keys,
                            [[maybe_unused]] const float* values, [[maybe_unused]] float* context,
                            const HeadsShape& shape) {
    arguments::fused_causal_attention(shape);  // bad input -> a clear error

    // TODO 1. scale = 1 / sqrt(head_dim), as a float.
    //      2. Run CausalRowAttention{queries, keys, values, context, shape, scale} for every
    //         row in [0, shape.rows()): thrust::for_each(thrust::device, first, last, functor)
    //         with thrust::counting_iterator<std::int64_t> as first and last.
    throw not_implemented("exercises/23_fused_attention.cu",
                          "gpu::fused_causal_attention(queries, keys, values, context, shape)");
}

}  // namespace attn::gpu
