// exercises/19_multi_head_attention.cpp — Exercise 19: MultiHeadAttention, one projection split
// into heads.
//
// The notebook cell it mirrors, In [37] of the book's chapter 3 notebook:
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
// [h * head_dim, (h + 1) * head_dim). Four pieces, each tested on its own:
//   a. split_heads: (B, T, d_out) -> (B, num_heads, T, head_dim), heads[b, h, t, k] =
//      projected[b, t, h * head_dim + k]. view() alone would give (B, num_heads, T, head_dim)
//      too, but with the wrong numbers in it: the transpose is what puts token t of head h
//      at [b, h, t].
//   b. merge_heads: the inverse, (B, num_heads, T, head_dim) -> (B, T, d_out).
//   c. truncated_mask: the buffer's first T rows and columns, as bools (true = hidden).
//   d. forward: project (x @ weight.T, + bias where the layer has one: qkv_bias), split,
//      then for each batch item b and head h exercise 15's attention on the (T, head_dim)
//      slices (scores, -inf where the mask is true BEFORE softmax, softmax of the scores
//      divided by sqrt(head_dim), not by sqrt(d_out), weighted values), merge, and out_proj
//      (merged @ weight.T + bias: out_proj always has its bias).
// Worked example of split_heads, B = 1, T = 2, d_out = 4, 2 heads (head_dim 2):
//   projected [[[1, 2, 3, 4], [5, 6, 7, 8]]] -> heads [[[[1, 2], [5, 6]], [[3, 4], [7, 8]]]]
//   (head 0 holds features 0 and 1 of both tokens, head 1 features 2 and 3).
// xtensor: xt::reshape_view(t, {B, T, H, D}) is view(); xt::transpose(t, {0, 2, 1, 3}) is
// transpose(1, 2); assign the result to a Tensor4 to make it contiguous. Or write the index
// formula above in four loops. Matrix products: xt::linalg::dot on 2-D operands only, so
// loop over b and h; xt::view(heads, b, h, xt::all(), xt::all()) is one (T, head_dim) slice.
#include "attn/checks.hpp"
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
    checks::require_non_empty("split_heads", "projected", projected);
    checks::require_divisible("split_heads", "d_out", projected.shape(2), num_heads);

    // TODO: (B, T, d_out) -> (B, num_heads, T, head_dim), heads[b, h, t, k] =
    // projected[b, t, h * head_dim + k].
    throw not_implemented("exercises/19_multi_head_attention.cpp",
                          "split_heads(projected, num_heads)");
}

Tensor3 merge_heads(const Tensor4& heads) {
    checks::require_heads_tensor("merge_heads", heads);

    // TODO: (B, num_heads, T, head_dim) -> (B, T, num_heads * head_dim), the inverse of
    // split_heads.
    throw not_implemented("exercises/19_multi_head_attention.cpp", "merge_heads(heads)");
}

BoolMatrix truncated_mask(const Matrix& mask, std::size_t T) {
    checks::require_mask_for("truncated_mask", mask, T);

    // TODO: a (T, T) BoolMatrix, true where mask(i, j) is not 0 (i, j < T).
    throw not_implemented("exercises/19_multi_head_attention.cpp", "truncated_mask(mask, T)");
}

Tensor3 MultiHeadAttention::forward(const Tensor3& x) const {
    checks::require_batch("MultiHeadAttention.forward", x, d_in(), context_length());

    // TODO: queries, keys, values = the three layers on x (B, T, d_out), split into heads;
    // for every b and h: scores of the (T, head_dim) slices, -inf where truncated_mask(mask,
    // T) is true, softmax(scores / sqrt(head_dim), -1) @ values into the context's slice;
    // merge the heads and apply out_proj (with its bias). The result is (B, T, d_out).
    throw not_implemented("exercises/19_multi_head_attention.cpp",
                          "MultiHeadAttention::forward(x)");
}

}  // namespace attn
