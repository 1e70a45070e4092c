// exercises/18_unmasked_multi_head_attention.cpp — Exercise 18: multi-head attention with one
// projection split into heads, no mask, and fc_out (the book's Exercise 3.2, the other way).
//
// The notebook cell it mirrors, the course's solution of Exercise 3.2 (the book's solutions,
// exercise-solutions.ipynb, solve it by changing d_out instead: exercise 17):
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/exercise-solutions.ipynb
//   def forward(self, x):
//       B, T, _ = x.shape
//       Q = self.W_query(x); K = self.W_key(x); V = self.W_value(x)            # (B, T, d_out)
//       Q = Q.view(B, T, self.num_heads, self.d_k).transpose(1, 2)  # (B, num_heads, T, d_k)
//       K = K.view(B, T, self.num_heads, self.d_k).transpose(1, 2)
//       V = V.view(B, T, self.num_heads, self.d_k).transpose(1, 2)
//       attn_scores = Q @ K.transpose(-2, -1) / (self.d_k ** 0.5)      # (B, num_heads, T, T)
//       attn_weights = torch.softmax(attn_scores, dim=-1)
//       context = attn_weights @ V                                    # (B, num_heads, T, d_k)
//       context = context.transpose(1, 2).contiguous().view(B, T, self.num_heads * self.d_k)
//       return self.fc_out(context)
// Declared in include/attn/multi_head_attention.hpp (struct UnmaskedMultiHeadAttention).
// Check your work: `tools/kit check 18`. Stuck? `tools/kit hint 18`.
// The notebook's printed tensors, computed in C++ by the kit's solution beside the
// book's: `tools/kit book "000 In [12]"`.
//   attn::TorchGenerator torch(42); const Tensor3 x = torch.randn<3>({1, 5, 4});
//   UnmaskedMultiHeadAttention mha(4, 2, 2, torch);
// are the cell's torch.manual_seed(42), torch.randn and constructor: the same numbers, bit
// for bit.
//
// Goal: num_heads heads of attention at once, from ONE projection per Q, K and V. Head h owns
// head_dim = d_out / num_heads neighbouring columns of each projection, h * head_dim to
// (h + 1) * head_dim - 1: that is what view(B, T, num_heads, head_dim).transpose(1, 2) picks.
// Each head is exercise 07's scaled dot-product attention on its columns, scaled by
// sqrt(head_dim) (not sqrt(d_out)); there is NO causal mask. The merge,
// transpose(1, 2).contiguous().view(B, T, d_out), puts head h's context back into the same
// columns; fc_out (a Linear layer without bias, (d_out, d_out)) then mixes the heads.
// The module's maths, shapes and the notebook's values:
// include/attn/multi_head_attention.hpp, Exercise 18.
// Worked example, one token: T = 1, every head's only weight is 1, so context = v and
// out[b][0] = (x[b][0] @ W_value.weight.T) @ fc_out.weight.T, whatever the queries and keys.
// With num_heads = 1 this is exercise 10's SelfAttention_v2 on each item, then fc_out.
// Inside forward the module's members are in scope: W_query, W_key, W_value, fc_out,
// num_heads, d_in(), d_out(), head_dim().
// xtensor: xt::linalg::dot is numpy's dot, not matmul: give it 2-D operands, so loop over the
// batch and the heads. xt::view(x, b, xt::all(), xt::all()) is item b as a (T, d_in) view;
// xt::view(q, xt::all(), xt::range(h * hd, (h + 1) * hd)) head h's columns (assign to the same
// view of a (T, d_out) matrix to write them). softmax(m, -1) of exercise 03 is yours to call.
// If you reduce by hand (a row max or sum with keep_dims), store the reduction in a Matrix
// before you broadcast it: xtensor 0.24's lazy keep_dims reducer reads out of bounds then.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xview.hpp>

#include <cmath>

namespace attn {

Tensor3 UnmaskedMultiHeadAttention::forward(const Tensor3& x) const {
    arguments::unmasked_multi_head_attention_forward(x, d_in());  // bad input -> a clear error

    // TODO 1. out = zeros of shape (B, T, d_out()), B = x.shape(0), T = x.shape(1).
    //      2. For every batch item b:
    //         a. q, k, v = x[b] @ W.weight.T for W_query, W_key, W_value: (T, d_out) each;
    //         b. context = a (T, d_out) Matrix; for every head h, on its columns
    //            h * head_dim() .. (h + 1) * head_dim() - 1:
    //            context's columns = softmax(q_h @ k_h.T / sqrt(head_dim()), -1) @ v_h;
    //         c. out[b] = context @ fc_out.weight.T.
    //      3. Return out.
    throw not_implemented("exercises/18_unmasked_multi_head_attention.cpp",
                          "UnmaskedMultiHeadAttention::forward(x)");
}

}  // namespace attn
