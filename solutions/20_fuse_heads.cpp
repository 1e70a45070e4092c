// solutions/20_fuse_heads.cpp — reference solution of Exercise 20: a wrapper's heads fused
// into one MultiHeadAttention.
//
// Source: ch03.ipynb In [35] and In [36], compared in the book's §3.6.2 (see
// exercises/20_fuse_heads.cpp). Declared in include/attn/multi_head_attention.hpp.
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"
#include "attn/linear.hpp"
#include "attn/multi_head_attention.hpp"

#include <xtensor/xbuilder.hpp>
#include <xtensor/xview.hpp>

namespace attn {
namespace {

// The layer `which` of every head, stacked: head h's rows are [h * head_dim, (h + 1) *
// head_dim) of the weight (and its entries of the bias).
Linear stacked(const MultiHeadAttentionWrapper& wrapper, Linear CausalAttention::*which) {
    const Linear& first = wrapper.heads[0].*which;
    const std::size_t head_dim = first.d_out(), d_out = wrapper.d_out();
    Linear fused{xt::zeros<float>({d_out, first.d_in()}), {}};
    if (first.has_bias()) fused.bias = xt::zeros<float>({d_out});
    for (std::size_t h = 0; h < wrapper.num_heads(); ++h) {
        const Linear& head = wrapper.heads[h].*which;
        const std::size_t first_row = h * head_dim, end_row = (h + 1) * head_dim;
        xt::view(fused.weight, xt::range(first_row, end_row), xt::all()) = head.weight;
        if (head.has_bias()) xt::view(fused.bias, xt::range(first_row, end_row)) = head.bias;
    }
    return fused;
}

}  // namespace

MultiHeadAttention fuse_heads(const MultiHeadAttentionWrapper& wrapper) {
    const std::size_t d_out = wrapper.d_out();
    const Linear identity{xt::eye<float>(d_out), xt::zeros<float>({d_out})};
    return MultiHeadAttention(stacked(wrapper, &CausalAttention::W_query),
                              stacked(wrapper, &CausalAttention::W_key),
                              stacked(wrapper, &CausalAttention::W_value), identity,
                              wrapper.num_heads(), wrapper.context_length());
}

}  // namespace attn
