// solutions/21_two_heads_columns.cpp — reference solution of Exercise 21: multi-head
// self-attention in the column convention, the heads stacked and combined by W_c.
//
// Source: 12_2_Multihead_Self_Attention.ipynb, multihead_scaled_self_attention (see
// exercises/21_two_heads_columns.cpp). Declared in include/attn/multi_head_attention.hpp.
// Uses exercise 08 (scaled_dot_product_self_attention, one head); the kit links its reference
// solution.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/simple_attention.hpp"
#include "attn/trainable_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xview.hpp>

#include <cstddef>
#include <vector>

namespace attn {

Matrix multi_head_attention_columns(const Matrix& X, const ColumnHeads& heads, const Matrix& W_c) {
    arguments::multi_head_attention_columns(X, heads, W_c);  // bad input -> a clear error

    const std::size_t d_v = heads[0].W_v.shape(0), N = X.shape(1);
    Matrix stacked = xt::zeros<float>({heads.size() * d_v, N});  // torch.cat(..., dim=0)
    for (std::size_t h = 0; h < heads.size(); ++h) {
        const ColumnHead& head = heads[h];
        xt::view(stacked, xt::range(h * d_v, (h + 1) * d_v), xt::all()) =
            scaled_dot_product_self_attention(X, head.W_v, head.W_q, head.W_k, head.b_v, head.b_q,
                                              head.b_k);  // (d_v, N)
    }
    return xt::linalg::dot(W_c, stacked);  // (D_out, N)
}

}  // namespace attn
