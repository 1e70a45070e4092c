// solutions/19_multi_head_attention.cpp — reference solution of Exercise 19: MultiHeadAttention.
//
// Source: ch03.ipynb In [36] (see exercises/19_multi_head_attention.cpp). Declared in
// include/attn/multi_head_attention.hpp. Uses exercise 03 (softmax); the kit links its
// reference solution.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include <cmath>
#include <limits>

namespace attn {
namespace {

// layer(x) for every token of the batch: (B, T, d_in) -> (B, T, d_out), one matrix product
// over the B * T rows.
Tensor3 project(const Linear& layer, const Tensor3& x) {
    const std::size_t B = x.shape(0), T = x.shape(1);
    const Matrix rows = xt::reshape_view(x, {B * T, x.shape(2)});
    Matrix projected = xt::linalg::dot(rows, xt::transpose(layer.weight));
    if (layer.has_bias()) projected += layer.bias;
    return xt::reshape_view(projected, {B, T, layer.d_out()});
}

}  // namespace

Tensor4 split_heads(const Tensor3& projected, std::size_t num_heads) {
    arguments::split_heads(projected, num_heads);  // bad input -> a clear error

    const std::size_t B = projected.shape(0), T = projected.shape(1);
    const std::size_t head_dim = projected.shape(2) / num_heads;
    // view(b, T, num_heads, head_dim).transpose(1, 2), made contiguous
    return xt::transpose(xt::reshape_view(projected, {B, T, num_heads, head_dim}), {0, 2, 1, 3});
}

Tensor3 merge_heads(const Tensor4& heads) {
    arguments::merge_heads(heads);  // bad input -> a clear error

    const std::size_t B = heads.shape(0), H = heads.shape(1), T = heads.shape(2);
    // transpose(1, 2).contiguous().view(b, T, d_out)
    const Tensor4 tokens_first = xt::transpose(heads, {0, 2, 1, 3});  // (B, T, H, head_dim)
    return xt::reshape_view(tokens_first, {B, T, H * heads.shape(3)});
}

BoolMatrix truncated_mask(const Matrix& mask, std::size_t T) {
    arguments::truncated_mask(mask, T);  // bad input -> a clear error

    return xt::not_equal(xt::view(mask, xt::range(0, T), xt::range(0, T)), 0.0f);
}

Tensor3 MultiHeadAttention::forward(const Tensor3& x) const {
    // bad input -> a clear error
    arguments::multi_head_attention_forward(x, d_in(), context_length());

    const std::size_t B = x.shape(0), T = x.shape(1);
    const Tensor4 queries = split_heads(project(W_query, x), num_heads);  // (B, H, T, head_dim)
    const Tensor4 keys = split_heads(project(W_key, x), num_heads);
    const Tensor4 values = split_heads(project(W_value, x), num_heads);
    const BoolMatrix hidden = truncated_mask(mask, T);
    const float scale = std::sqrt(static_cast<float>(head_dim()));

    Tensor4 context = xt::zeros<float>(queries.shape());
    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t h = 0; h < num_heads; ++h) {
            const Matrix q = xt::view(queries, b, h, xt::all(), xt::all());  // (T, head_dim)
            const Matrix k = xt::view(keys, b, h, xt::all(), xt::all());
            const Matrix v = xt::view(values, b, h, xt::all(), xt::all());
            Matrix scores = xt::linalg::dot(q, xt::transpose(k));  // (T, T)
            scores = xt::where(hidden, -std::numeric_limits<float>::infinity(), scores);
            const Matrix weights = softmax(Matrix(scores / scale), -1);
            xt::view(context, b, h, xt::all(), xt::all()) = xt::linalg::dot(weights, v);
        }
    }
    return project(out_proj, merge_heads(context));
}

}  // namespace attn
