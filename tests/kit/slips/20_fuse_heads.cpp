// tests/kit/slips/20_fuse_heads.cpp — exercise 20's solution with the slips students make, each
// chosen at run time by ATTN_SLIP (tests/kit/test_slips.py runs every one and reads the status
// line). Without ATTN_SLIP it is the solution and passes every test.
// Heads stacked along the columns, or transposed, give W_query another d_out than out_proj's:
// MultiHeadAttention's constructor refuses them, and the test names W_query (not out_proj,
// the one layer built right) from the wrapper's shapes; an out_proj of one head's d_out is
// named out_proj, with the same two shapes the other way round.
//
// slip: heads_reversed -> reverse order
// slip: rows_interleaved -> interleaved
// slip: stacked_by_columns -> W_query.weight has 2 rows (one head's head_dim
// slip: stacked_transposed -> W_query.weight has 3 rows (d_in
// slip: qkv_biases_not_stacked -> W_query.bias
// slip: out_proj_zeros -> out_proj's weight left at zeros
// slip: out_proj_ones -> out_proj's weight all ones
// slip: out_proj_bias_dropped -> out_proj.bias
// slip: out_proj_of_one_head -> out_proj.weight has shape (2, 2)
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"
#include "attn/linear.hpp"
#include "attn/multi_head_attention.hpp"
#include "slip.hpp"

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include <cstdlib>
#include <string>

namespace attn {
namespace {

// The layer `which` of every head, stacked: head h's rows are [h * head_dim, (h + 1) *
// head_dim) of the weight (and its entries of the bias).
Linear stacked(const MultiHeadAttentionWrapper& wrapper, Linear CausalAttention::*which) {
    const Linear& first = wrapper.heads[0].*which;
    const std::size_t head_dim = first.d_out(), d_out = wrapper.d_out(), d_in = first.d_in();
    const std::size_t H = wrapper.num_heads();
    Linear fused{xt::zeros<float>({d_out, d_in}), {}};
    if (slip("stacked_by_columns")) fused.weight = xt::zeros<float>({head_dim, H * d_in});
    if (slip("stacked_transposed")) fused.weight = xt::zeros<float>({d_in, d_out});
    if (first.has_bias() && !slip("qkv_biases_not_stacked")) fused.bias = xt::zeros<float>({d_out});
    for (std::size_t h = 0; h < H; ++h) {
        const Linear& head = wrapper.heads[h].*which;
        std::size_t block = h;
        if (slip("heads_reversed")) block = H - 1 - h;
        const std::size_t first_row = block * head_dim, end_row = (block + 1) * head_dim;
        if (slip("stacked_by_columns")) {
            xt::view(fused.weight, xt::all(), xt::range(h * d_in, (h + 1) * d_in)) = head.weight;
        } else if (slip("stacked_transposed")) {
            xt::view(fused.weight, xt::all(), xt::range(first_row, end_row)) =
                xt::transpose(head.weight);
        } else if (slip("rows_interleaved")) {
            for (std::size_t i = 0; i < head_dim; ++i) {
                xt::view(fused.weight, i * H + h, xt::all()) = xt::view(head.weight, i, xt::all());
            }
        } else {
            xt::view(fused.weight, xt::range(first_row, end_row), xt::all()) = head.weight;
        }
        if (fused.has_bias()) {
            if (slip("rows_interleaved")) {
                for (std::size_t i = 0; i < head_dim; ++i) fused.bias(i * H + h) = head.bias(i);
            } else {
                xt::view(fused.bias, xt::range(first_row, end_row)) = head.bias;
            }
        }
    }
    return fused;
}

}  // namespace

MultiHeadAttention fuse_heads(const MultiHeadAttentionWrapper& wrapper) {
    std::size_t d_out = wrapper.d_out();
    if (slip("out_proj_of_one_head")) d_out = wrapper.heads[0].d_out();  // one head's d_out
    Linear identity{xt::eye<float>(d_out), xt::zeros<float>({d_out})};
    if (slip("out_proj_zeros")) identity.weight = xt::zeros<float>({d_out, d_out});
    if (slip("out_proj_ones")) identity.weight = xt::ones<float>({d_out, d_out});
    if (slip("out_proj_bias_dropped")) identity.bias = Vector{};
    return MultiHeadAttention(stacked(wrapper, &CausalAttention::W_query),
                              stacked(wrapper, &CausalAttention::W_key),
                              stacked(wrapper, &CausalAttention::W_value), identity,
                              wrapper.num_heads(), wrapper.context_length());
}

}  // namespace attn
