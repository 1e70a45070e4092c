// kit/cpu/fast_attention.cpp — causal multi-head attention on the CPU, fused and blocked.
//
// The teaching solution (solutions/19_multi_head_attention.cpp) follows the notebook: three
// projections, split_heads, a full T×T score matrix per head, a mask of -inf, softmax, weights
// @ values, merge_heads, out_proj. Per head that is a T×T matrix written and read four times,
// half of it computed only to be masked. This file computes the same forward as production
// CPU kernels do:
//
//   1. One GEMM for the three projections: x (B·T, d_in) @ [W_query; W_key; W_value]ᵀ, through
//      OpenBLAS, with the biases as its initial value (beta = 1).
//   2. Each head's keys transposed once into a contiguous (head_dim, T) panel, so that a row of
//      scores is a sum of contiguous key rows; queries and values are read in place.
//   3. Per (batch, head, block of query rows), an online softmax over blocks of keys (the
//      "flash attention" recurrence): a running maximum m, a running sum l and an unnormalised
//      context row; each key block rescales them by exp(m_old - m_new). Key blocks above the
//      diagonal are never computed, and in the diagonal block each row stops at its own token,
//      so no -inf and no mask is ever read. No T×T matrix exists: a block of scores is
//      kBlock × kBlock floats (16 KiB), which stays in the L1/L2 cache with its keys and values.
//   4. The work items, (batch, head, query block), spread over OpenMP threads with the costly
//      ones (late query blocks, which see the most keys) handed out first, dynamically: the
//      causal triangle balanced.
//   5. out_proj as one GEMM on the merged heads, which step 3 wrote in place (head h's context
//      in columns [h·head_dim, (h+1)·head_dim) of its token's row: merge_heads for free).
//
// The inner loops run over contiguous floats with no branch, and exp is a polynomial the
// compiler vectorises (fast_exp below), so each is a SIMD loop (g++ -fopt-info-vec confirms).
//
// Taken from PyTorch's CPU flash attention (aten/src/ATen/native/cpu/FlashAttentionKernel.cpp):
// the blocked online softmax, parallelism over (batch, head, query block), skipping key blocks
// past the last query of a causal block. From ggml's CPU path: splitting the work into more
// chunks than threads and handing them out dynamically, and its vectorised exp by range
// reduction. Not taken: PyTorch's packed/bf16 paths and its use of a GEMM call per block (at
// head_dim 64 a call's overhead outweighs a blocked loop the compiler vectorises), and ggml's
// f16 key/value cache.
#include "kit/cpu/fast_attention.hpp"

#include "attn/checks.hpp"
#include "attn/errors.hpp"

#include <algorithm>
#include <cblas.h>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <string>

namespace attn::cpu {
namespace {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ATTN_SIMD_CLONES \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define ATTN_SIMD_CLONES
#endif

// Query rows and keys per block: 64 × 256 scores (64 KiB, in the L2 cache beside the block's
// queries, keys and values).
constexpr std::size_t kQueryBlock = 64, kKeyBlock = 256;

// exp(x) for x <= 0 to within a few ulp of std::exp, written so that a loop of it vectorises:
// x = n·ln2 + r with |r| <= ln2/2, exp(r) by its degree-6 Taylor polynomial, 2^n built in the
// exponent bits. n is rounded by a truncating conversion (x <= 0), which SSE2 has. Below -87.3
// the result is about 1e-38, where exp underflows anyway.
inline float fast_exp(float x) {
    constexpr float log2e = 1.44269504088896341f;
    constexpr float ln2_hi = 0.693359375f, ln2_lo = -2.12194440e-4f;
    x = x > -87.3f ? x : -87.3f;  // a select, not std::max's branch: the loop vectorises
    const std::int32_t n = static_cast<std::int32_t>(x * log2e - 0.5f);
    const float r = (x - static_cast<float>(n) * ln2_hi) - static_cast<float>(n) * ln2_lo;
    float p = 1.0f / 720;
    p = p * r + 1.0f / 120;
    p = p * r + 1.0f / 24;
    p = p * r + 1.0f / 6;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    return p * __builtin_bit_cast(float, (n + 127) << 23);  // 2^n: n + 127 in the exponent bits
}

// One head of one batch item, read in place in the projections' rows (qkv, row stride 3·d_out):
// its queries, keys and values are head_dim-wide column blocks of them.
struct Head {
    const float* queries;  // row t at queries + t * row_stride
    const float* keys;
    const float* values;
    std::size_t row_stride, head_dim;
    float scale;  // 1/√head_dim
};

// OpenBLAS runs one GEMM on several threads of its own; inside the OpenMP loop each thread's
// block GEMMs must run on that thread alone. Weak: another BLAS has no such switch.
#pragma weak openblas_get_num_threads
#pragma weak openblas_set_num_threads

class SingleThreadedBlas {
public:
    SingleThreadedBlas() {
        if (openblas_get_num_threads && openblas_set_num_threads) {
            threads_ = openblas_get_num_threads();
            openblas_set_num_threads(1);
        }
    }
    ~SingleThreadedBlas() {
        if (threads_ > 0) openblas_set_num_threads(threads_);
    }
    SingleThreadedBlas(const SingleThreadedBlas&) = delete;
    SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;

private:
    int threads_ = 0;
};

blasint blas_int(std::size_t n) { return static_cast<blasint>(n); }

// Step 3 for the query rows [q0, q1) of one head: writes their context rows, head_dim floats
// each, at context + i * context_stride. `scores` has room for kQueryBlock × kKeyBlock floats,
// `accumulated` for kQueryBlock × head_dim.
// Not inlined: GCC vectorises its loops in a function of its own, not in the OpenMP region's.
// Compiled three times, for AVX-512, AVX2 + FMA and plain x86-64 (SSE2), and picked when the
// program loads (GCC's target_clones): the softmax loops run 16 or 8 floats wide where the CPU
// can, and the kit's binaries still run on any x86-64.
ATTN_SIMD_CLONES __attribute__((noinline)) void attend_block(const Head& head, std::size_t q0,
                                                             std::size_t q1, float* scores,
                                                             float* accumulated, float* context,
                                                             std::size_t context_stride) {
    const std::size_t rows = q1 - q0, hd = head.head_dim, stride = head.row_stride;
    float running_max[kQueryBlock], running_sum[kQueryBlock];
    std::fill(running_max, running_max + rows, -std::numeric_limits<float>::infinity());
    std::fill(running_sum, running_sum + rows, 0.0f);
    std::fill(accumulated, accumulated + rows * hd, 0.0f);

    // Key blocks up to the block's last query only: the ones above the diagonal are skipped.
    for (std::size_t k0 = 0; k0 < q1; k0 += kKeyBlock) {
        const std::size_t width = std::min(kKeyBlock, q1 - k0);
        // scores (rows, width) = queries[q0:q1] @ keys[k0:k0+width]ᵀ / √head_dim
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, blas_int(rows), blas_int(width),
                    blas_int(hd), head.scale, head.queries + q0 * stride, blas_int(stride),
                    head.keys + k0 * stride, blas_int(stride), 0.0f, scores, blas_int(kKeyBlock));
        for (std::size_t r = 0; r < rows; ++r) {
            float* row = scores + r * kKeyBlock;
            // Row q0 + r sees its own token and the ones before it: `seen` keys of this block.
            const std::size_t seen = std::min(width, q0 + r + 1 - std::min(q0 + r + 1, k0));
            float block_max = running_max[r];
#pragma omp simd reduction(max : block_max)
            for (std::size_t j = 0; j < seen; ++j)
                block_max = row[j] > block_max ? row[j] : block_max;
            float block_sum = 0.0f;
#pragma omp simd reduction(+ : block_sum)
            for (std::size_t j = 0; j < seen; ++j) {
                row[j] = fast_exp(row[j] - block_max);
                block_sum += row[j];
            }
            std::fill(row + seen, row + width, 0.0f);  // the future: weight 0, exactly
            // What earlier key blocks gave, rescaled to the new maximum.
            const float rescale = fast_exp(running_max[r] - block_max);
            running_max[r] = block_max;
            running_sum[r] = running_sum[r] * rescale + block_sum;
            float* out = accumulated + r * hd;
#pragma omp simd
            for (std::size_t d = 0; d < hd; ++d) out[d] *= rescale;
        }
        // accumulated (rows, hd) += weights (rows, width) @ values[k0:k0+width]
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blas_int(rows), blas_int(hd),
                    blas_int(width), 1.0f, scores, blas_int(kKeyBlock), head.values + k0 * stride,
                    blas_int(stride), 1.0f, accumulated, blas_int(hd));
    }
    for (std::size_t r = 0; r < rows; ++r) {
        const float inverse = 1.0f / running_sum[r];
        const float* out = accumulated + r * hd;
        float* target = context + (q0 + r) * context_stride;
#pragma omp simd
        for (std::size_t d = 0; d < hd; ++d) target[d] = out[d] * inverse;
    }
}

}  // namespace

FastMultiHeadAttention::FastMultiHeadAttention(const MultiHeadAttention& module)
    : d_in_(module.d_in()),
      d_out_(module.d_out()),
      num_heads_(module.num_heads),
      context_length_(module.context_length()),
      out_weight_(module.out_proj.weight.begin(), module.out_proj.weight.end()),
      out_bias_(module.out_proj.bias.begin(), module.out_proj.bias.end()) {
    const Linear* layers[] = {&module.W_query, &module.W_key, &module.W_value};
    const bool any_bias = std::any_of(std::begin(layers), std::end(layers),
                                      [](const Linear* layer) { return layer->has_bias(); });
    if (any_bias) qkv_bias_.assign(3 * d_out_, 0.0f);  // a layer without one adds zeros
    for (std::size_t p = 0; p < 3; ++p) {
        qkv_weight_.insert(qkv_weight_.end(), layers[p]->weight.begin(), layers[p]->weight.end());
        if (layers[p]->has_bias()) {
            std::copy(layers[p]->bias.begin(), layers[p]->bias.end(),
                      qkv_bias_.begin() + static_cast<std::ptrdiff_t>(p * d_out_));
        }
    }
}

Tensor3 FastMultiHeadAttention::forward(const Tensor3& x) const {
    checks::require_batch("MultiHeadAttention.forward", x, d_in_, context_length_);
    const std::size_t B = x.shape(0), T = x.shape(1), D = d_out_, H = num_heads_;
    const std::size_t hd = D / H, rows = B * T;
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));

    // 1. qkv (B·T, 3·D) = x @ [Wq; Wk; Wv]ᵀ + [bq; bk; bv].
    std::vector<float> qkv(rows * 3 * D);
    if (!qkv_bias_.empty()) {
        for (std::size_t r = 0; r < rows; ++r) {
            std::copy(qkv_bias_.begin(), qkv_bias_.end(), qkv.begin() + r * 3 * D);
        }
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, blas_int(rows), blas_int(3 * D),
                blas_int(d_in_), 1.0f, x.data(), blas_int(d_in_), qkv_weight_.data(),
                blas_int(d_in_), qkv_bias_.empty() ? 0.0f : 1.0f, qkv.data(), blas_int(3 * D));

    // 3-4. Every (batch, head, query block), the late (costly) blocks first; each writes its
    // context rows into the merged heads' matrix (B·T, D).
    std::vector<float> merged(rows * D);
    const std::size_t blocks = (T + kQueryBlock - 1) / kQueryBlock, heads = B * H;
    {
        const SingleThreadedBlas one_thread_each;
#pragma omp parallel
        {
            std::vector<float> scores(kQueryBlock * kKeyBlock), accumulated(kQueryBlock * hd);
#pragma omp for schedule(dynamic, 1)
            for (std::size_t item = 0; item < heads * blocks; ++item) {
                const std::size_t block = blocks - 1 - item / heads;
                const std::size_t b = item % heads / H, h = item % H;
                const float* first_row = qkv.data() + b * T * 3 * D + h * hd;
                const Head head{first_row, first_row + D, first_row + 2 * D, 3 * D, hd, scale};
                const std::size_t q0 = block * kQueryBlock, q1 = std::min(q0 + kQueryBlock, T);
                attend_block(head, q0, q1, scores.data(), accumulated.data(),
                             merged.data() + b * T * D + h * hd, D);
            }
        }
    }

    // 5. out (B·T, D) = merged @ out_projᵀ + bias.
    Tensor3 out = xt::empty<float>({B, T, D});
    for (std::size_t r = 0; r < rows; ++r) {
        std::copy(out_bias_.begin(), out_bias_.end(), out.data() + r * D);
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, blas_int(rows), blas_int(D), blas_int(D),
                1.0f, merged.data(), blas_int(D), out_weight_.data(), blas_int(D), 1.0f, out.data(),
                blas_int(D));
    return out;
}

}  // namespace attn::cpu
