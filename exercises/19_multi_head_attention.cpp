// exercises/19_multi_head_attention.cpp — Exercise 19: MultiHeadAttention, one projection split
// into heads.
//
// The notebook cell it mirrors, In [36] of the book's chapter 3 notebook:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   keys = self.W_key(x)                                   # (b, num_tokens, d_out)
//   keys = keys.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
//   ... (queries, values alike)
//   attn_scores = queries @ keys.transpose(2, 3)           # (b, num_heads, T, T)
//   mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
//   attn_scores.masked_fill_(mask_bool, -torch.inf)
//   attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
//   context_vec = (attn_weights @ values).transpose(1, 2)
//   context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
//   context_vec = self.out_proj(context_vec)
// Declared in include/attn/multi_head_attention.hpp (split_heads, merge_heads, truncated_mask,
// struct MultiHeadAttention). Check your work: `tools/kit check 19`. Stuck? `tools/kit hint 19`.
// The notebook's printed tensors, computed in C++ by the kit's solution beside the
// book's: `tools/kit book "ch03.ipynb In [36]"`.
//   attn::TorchGenerator torch(123); MultiHeadAttention mha(3, 2, 6, 2, false, torch);
// is the cell's torch.manual_seed(...) and constructor: the same parameters, bit for bit.
//
// Goal: exercise 16's heads in one module. W_query computes all heads' queries at once,
// (B, T, d_out) with d_out = num_heads * head_dim; head h owns the features
// [h * head_dim, (h + 1) * head_dim). Four pieces, each tested on its own: split_heads,
// merge_heads (its inverse), truncated_mask, and forward, which runs exercise 15's attention
// on each head's (T, head_dim) slices.
// Each function's maths, shapes and the notebook's values:
// include/attn/multi_head_attention.hpp, Exercise 19.
// Why split_heads transposes: view() alone would give (B, num_heads, T, head_dim) too, but
// with the wrong numbers in it: the transpose is what puts token t of head h at [b, h, t].
// Worked example of split_heads, B = 1, T = 2, d_out = 4, 2 heads (head_dim 2):
//   projected [[[1, 2, 3, 4], [5, 6, 7, 8]]] -> heads [[[[1, 2], [5, 6]], [[3, 4], [7, 8]]]]
//   (head 0 holds features 0 and 1 of both tokens, head 1 features 2 and 3).
// xtensor: xt::reshape_view(t, {B, T, H, D}) is view(); xt::transpose(t, {0, 2, 1, 3}) is
// transpose(1, 2); assign the result to a Tensor4 to make it contiguous. Or write the index
// formula (step 3 of split_heads' TODO) in four loops. Matrix products: xt::linalg::dot on
// 2-D operands only, so loop over b and h; xt::view(heads, b, h, xt::all(), xt::all()) is one
// (T, head_dim) slice.
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

Tensor4 split_heads(const Tensor3& projected, std::size_t num_heads) {
    arguments::split_heads(projected, num_heads);  // bad input -> a clear error

    // TODO 1. B, T, d_out from projected's shape; head_dim = d_out / num_heads.
    //      2. heads = a Tensor4 of shape (B, num_heads, T, head_dim).
    //      3. For every b, h, t, k: heads(b, h, t, k) = projected(b, t, h * head_dim + k).
    //      4. Return heads.
    throw not_implemented("exercises/19_multi_head_attention.cpp",
                          "split_heads(projected, num_heads)");
}

Tensor3 merge_heads(const Tensor4& heads) {
    arguments::merge_heads(heads);  // bad input -> a clear error

    // TODO 1. B, num_heads, T, head_dim from heads's shape.
    //      2. merged = a Tensor3 of shape (B, T, num_heads * head_dim).
    //      3. For every b, h, t, k: merged(b, t, h * head_dim + k) = heads(b, h, t, k).
    //      4. Return merged.
    throw not_implemented("exercises/19_multi_head_attention.cpp", "merge_heads(heads)");
}

BoolMatrix truncated_mask(const Matrix& mask, std::size_t T) {
    arguments::truncated_mask(mask, T);  // bad input -> a clear error

    // TODO 1. A (T, T) BoolMatrix.
    //      2. For every i, j < T: entry (i, j) = mask(i, j) != 0; return it.
    throw not_implemented("exercises/19_multi_head_attention.cpp", "truncated_mask(mask, T)");
}

Tensor3 MultiHeadAttention::forward(const Tensor3& x) const {
    // bad input -> a clear error
    arguments::multi_head_attention_forward(x, d_in(), context_length());

    // TODO 1. queries, keys, values = x @ weight.T of each layer, plus its bias if it has one
    //         (qkv_bias): (B, T, d_out) each; split each with split_heads(..., num_heads).
    //      2. hidden = truncated_mask(mask, T), T = x.shape(1).
    //      3. For every b and h, on the (T, head_dim) slices: scores = q @ k.T, -inf where
    //         hidden is true; context's slice = softmax(scores / sqrt(head_dim()), -1) @ v.
    //      4. Return merge_heads(context) @ out_proj.weight.T + out_proj.bias, (B, T, d_out).
    throw not_implemented("exercises/19_multi_head_attention.cpp",
                          "MultiHeadAttention::forward(x)");
}

}  // namespace attn
