// tests/kit/slips/19_multi_head_attention.cpp — exercise 19's solution with the slips students
// make, each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py runs every one and reads
// the status line). Without ATTN_SLIP it is the solution and passes every test.
//
// slip: out_proj_dropped -> out_proj left out
// slip: out_proj_bias_dropped -> out_proj's bias left out
// slip: qkv_bias_ignored -> biases of W_query, W_key and W_value
// slip: mask_after_softmax -> masked after softmax
// slip: no_mask -> no causal mask
// slip: scale_after_softmax -> scaled after softmax
// slip: scale_left_out -> left out the / sqrt(head_dim)
// slip: scaled_by_d_out -> sqrt(d_out) instead of sqrt(head_dim)
// slip: merged_reversed -> reverse order
// slip: merged_without_transpose -> without transposing back
// slip: merged_interleaved -> interleaved
// slip: split_without_transpose -> split without the transpose
// slip: mask_transposed -> the future leaks in
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/simple_attention.hpp"
#include "slip.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace attn {
namespace {

// layer(x) for every token of the batch: (B, T, d_in) -> (B, T, d_out), one matrix product
// over the B * T rows; `with_bias` false leaves the bias out.
Tensor3 project(const Linear& layer, const Tensor3& x, bool with_bias = true) {
    const std::size_t B = x.shape(0), T = x.shape(1);
    const Matrix rows = xt::reshape_view(x, {B * T, x.shape(2)});
    Matrix projected = xt::linalg::dot(rows, xt::transpose(layer.weight));
    if (layer.has_bias() && with_bias) projected += layer.bias;
    return xt::reshape_view(projected, {B, T, layer.d_out()});
}

}  // namespace

Tensor4 split_heads(const Tensor3& projected, std::size_t num_heads) {
    arguments::split_heads(projected, num_heads);  // bad input -> a clear error

    const std::size_t B = projected.shape(0), T = projected.shape(1);
    const std::size_t head_dim = projected.shape(2) / num_heads;
    if (slip("split_without_transpose")) {
        return xt::reshape_view(projected, {B, num_heads, T, head_dim});
    }
    // view(b, T, num_heads, head_dim).transpose(1, 2), made contiguous
    return xt::transpose(xt::reshape_view(projected, {B, T, num_heads, head_dim}), {0, 2, 1, 3});
}

Tensor3 merge_heads(const Tensor4& heads) {
    arguments::merge_heads(heads);  // bad input -> a clear error

    const std::size_t B = heads.shape(0), H = heads.shape(1), T = heads.shape(2);
    const std::size_t D = heads.shape(3);
    if (slip("merged_without_transpose")) {
        return xt::reshape_view(heads, {B, T, H * D});
    }
    if (slip("merged_reversed") || slip("merged_interleaved")) {
        Tensor3 merged = xt::zeros<float>({B, T, H * D});
        for (std::size_t b = 0; b < B; ++b) {
            for (std::size_t h = 0; h < H; ++h) {
                for (std::size_t t = 0; t < T; ++t) {
                    for (std::size_t k = 0; k < D; ++k) {
                        const std::size_t column =
                            slip("merged_reversed") ? (H - 1 - h) * D + k : k * H + h;
                        merged(b, t, column) = heads(b, h, t, k);
                    }
                }
            }
        }
        return merged;
    }
    // transpose(1, 2).contiguous().view(b, T, d_out)
    const Tensor4 tokens_first = xt::transpose(heads, {0, 2, 1, 3});  // (B, T, H, head_dim)
    return xt::reshape_view(tokens_first, {B, T, H * D});
}

BoolMatrix truncated_mask(const Matrix& mask, std::size_t T) {
    arguments::truncated_mask(mask, T);  // bad input -> a clear error

    return xt::not_equal(xt::view(mask, xt::range(0, T), xt::range(0, T)), 0.0f);
}

Tensor3 MultiHeadAttention::forward(const Tensor3& x) const {
    // bad input -> a clear error
    arguments::multi_head_attention_forward(x, d_in(), context_length());

    const std::size_t B = x.shape(0), T = x.shape(1);
    const bool qkv_bias = !slip("qkv_bias_ignored");
    const Tensor4 queries = split_heads(project(W_query, x, qkv_bias), num_heads);
    const Tensor4 keys = split_heads(project(W_key, x, qkv_bias), num_heads);
    const Tensor4 values = split_heads(project(W_value, x, qkv_bias), num_heads);
    const BoolMatrix hidden = slip("mask_transposed")
                                  ? BoolMatrix(xt::transpose(truncated_mask(mask, T)))
                                  : truncated_mask(mask, T);
    float scale = std::sqrt(static_cast<float>(head_dim()));
    if (slip("scaled_by_d_out")) scale = std::sqrt(static_cast<float>(d_out()));
    if (slip("scale_left_out")) scale = 1.0f;

    Tensor4 context = xt::zeros<float>(queries.shape());
    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t h = 0; h < num_heads; ++h) {
            const Matrix q = xt::view(queries, b, h, xt::all(), xt::all());  // (T, head_dim)
            const Matrix k = xt::view(keys, b, h, xt::all(), xt::all());
            const Matrix v = xt::view(values, b, h, xt::all(), xt::all());
            Matrix scores = xt::linalg::dot(q, xt::transpose(k));  // (T, T)
            if (!slip("mask_after_softmax") && !slip("no_mask")) {
                scores = xt::where(hidden, -std::numeric_limits<float>::infinity(), scores);
            }
            Matrix weights;
            if (slip("scale_after_softmax")) {
                weights = softmax(scores, -1);
                weights = weights / scale;
            } else {
                weights = softmax(Matrix(scores / scale), -1);
            }
            if (slip("mask_after_softmax")) weights = xt::where(hidden, 0.0f, weights);
            xt::view(context, b, h, xt::all(), xt::all()) = xt::linalg::dot(weights, v);
        }
    }
    const Tensor3 merged = merge_heads(context);
    if (slip("out_proj_dropped")) return merged;
    return project(out_proj, merged, !slip("out_proj_bias_dropped"));
}

}  // namespace attn
