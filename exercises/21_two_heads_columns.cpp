// exercises/21_two_heads_columns.cpp — Exercise 21: multi-head self-attention in the column
// convention, the heads stacked and combined by W_c.
//
// The notebook cell it mirrors, Understanding Deep Learning's multi-head self-attention
// notebook (the TODO cell of multihead_scaled_self_attention), in its PyTorch form:
//   https://github.com/udlbook/udlbook/blob/main/Notebooks/Chap12/12_2_Multihead_Self_Attention.ipynb
//   def multihead_scaled_self_attention(X, W_v1, W_q1, W_k1, b_v1, b_q1, b_k1,
//                                       W_v2, W_q2, W_k2, b_v2, b_q2, b_k2, W_c):
//       Q1 = torch.matmul(W_q1, X) + b_q1; K1 = ...; V1 = ...      (and Q2, K2, V2)
//       d_k = torch.tensor(K1.shape[0], dtype=torch.float32)
//       attentions1 = multi_head_softmax_cols(torch.matmul(K1.T, Q1) / torch.sqrt(d_k))
//       head1_output = torch.matmul(V1, attentions1)                 (and head2_output)
//       concatenated_output = torch.cat((head1_output, head2_output), dim=0)
//       X_prime = torch.matmul(W_c, concatenated_output)
// Declared in include/attn/multi_head_attention.hpp (struct ColumnHead).
// Check your work: `tools/kit check 21`. Stuck? `tools/kit hint 21`.
// The notebook's printed tensors, computed in C++ by the kit's solution beside the
// book's: `tools/kit book '12_2_Multihead_Self_Attention.ipynb the "X_prime'`.
//   attn::TorchGenerator torch(0); then each W and b as torch.randn<2>(shape), in the
//   cell's order, are its torch.manual_seed(0) and torch.randn calls: the same numbers.
//
// Goal: several heads look at the same tokens, the columns of X (D, N). Head h is exercise
// 08's self-attention with its own parameters; the heads' outputs are stacked on top of each
// other, and W_c mixes the stacked features back into one output per token. No 13 positional
// arguments here: each head's six parameters travel in a ColumnHead, for any number of heads.
// The maths, shapes and the notebook's values: include/attn/multi_head_attention.hpp,
// Exercise 21.
// Worked example, one token (N = 1: each head's only weight is 1, so head_h = V_h), D = 2,
// d_k = d_v = 1, x = [[1], [2]]:
//   head 0: W_v = [[1, 0]], b_v = [[0]] -> [[1]];  head 1: W_v = [[0, 1]], b_v = [[1]] -> [[3]]
//   stacked = [[1], [3]];  W_c = [[1, 1], [0, 2]] -> X_prime = [[4], [6]]
// Exercise 08's scaled_dot_product_self_attention(X, W_v, W_q, W_k, b_v, b_q, b_k) is one head
// (mind its order: values first); exercise 06's project_columns and exercise 03's
// softmax(m, 0) are yours to call too. xtensor: xt::linalg::dot(a, b) for a 2-D product;
// xt::concatenate(xt::xtuple(a, b), 0) stacks two matrices' rows, or write head h into rows
// h * d_v to (h + 1) * d_v of a (num_heads * d_v, N) matrix with
// xt::view(stacked, xt::range(h * d_v, (h + 1) * d_v), xt::all()) = ...
// Writing your own column softmax? Store a reduction in a container before broadcasting it
// (Matrix sums = xt::sum(e, {0}, xt::keep_dims)): xtensor 0.24's lazy keep_dims reducer reads
// out of bounds when broadcast.
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

    // TODO 1. d_v = heads[0].W_v.shape(0), N = X.shape(1); stacked = zeros of shape
    //         (heads.size() * d_v, N).
    //      2. For every head h: its output, scaled_dot_product_self_attention(X, W_v, W_q,
    //         W_k, b_v, b_q, b_k) with its parameters, (d_v, N), into rows
    //         h * d_v .. (h + 1) * d_v - 1 of stacked.
    //      3. Return W_c @ stacked, (D_out, N).
    throw not_implemented("exercises/21_two_heads_columns.cpp",
                          "multi_head_attention_columns(X, heads, W_c)");
}

}  // namespace attn
