// exercises/12_tril_mask_renormalize.cpp — Exercise 12: the causal mask with tril, then
// renormalise the rows.
//
// The notebook cells it mirrors, In [26] to In [28] of the book's chapter 3 notebook:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   mask_simple = torch.tril(torch.ones(context_length, context_length))     tril_mask
//   masked_simple = attn_weights*mask_simple                                 apply_tril_mask
//   row_sums = masked_simple.sum(dim=-1, keepdim=True)
//   masked_simple_norm = masked_simple / row_sums                            mask_and_renormalize
// Declared in include/attn/causal_attention.hpp.
// Check your work: `tools/kit check 12`. Stuck? `tools/kit hint 12`.
// The notebook's printed tensors, computed in C++ by the kit's solution beside the
// book's: `tools/kit book "ch03.ipynb In [27]" "ch03.ipynb In [28]"`.
//
// Goal: causal attention. When a language model reads token i it must not peek at the tokens
// after it, so query i may only attend to keys j <= i. Here you hide the future AFTER softmax:
// multiply the (T, T) attention weights by a mask that is 1 on and below the diagonal and 0
// above it, then divide every row by its new sum so that each row sums to 1 again.
// Each function's maths, shapes and the notebook's values: include/attn/causal_attention.hpp,
// Exercise 12.
// Which numbers: ch03.ipynb masks the weights of a SelfAttention_v2 built at
//   torch.manual_seed(789), and the cases notebook and apply_notebook follow it; the *_seed42 cases
//   run the same cells at seed 42.
//   `tools/kit show 12 notebook` prints one of them with its source.
// Worked example, T = 2: weights [[0.5, 0.5], [0.2, 0.8]] -> mask [[1, 0], [1, 1]]
//   -> masked [[0.5, 0], [0.2, 0.8]] -> normalized [[1, 0], [0.2, 0.8]]
// Exercise 13 reaches the same weights in one step, with -inf before softmax.
// If you divide by a keep_dims reduction, store it in a Matrix first: xtensor 0.24 reads past
// a buffer on the lazy `m / xt::sum(m, {1}, xt::keep_dims)` (exercise 03's stub says more).
#include "attn/arguments.hpp"
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>

namespace attn {

Matrix tril_mask(std::size_t context_length) {
    arguments::tril_mask(context_length);  // bad input -> a clear error

    // TODO 1. A (context_length, context_length) Matrix of zeros.
    //      2. Set entry (i, j) to 1 wherever j <= i (on and below the diagonal); return it.
    throw not_implemented("exercises/12_tril_mask_renormalize.cpp", "tril_mask(context_length)");
}

Matrix apply_tril_mask(const Matrix& weights) {
    arguments::apply_tril_mask(weights);  // bad input -> a clear error

    // TODO 1. mask = tril_mask(T), T = weights.shape(0).
    //      2. Return weights * mask (elementwise): every entry above the diagonal set to 0.
    throw not_implemented("exercises/12_tril_mask_renormalize.cpp", "apply_tril_mask(weights)");
}

Matrix mask_and_renormalize(const Matrix& weights) {
    arguments::mask_and_renormalize(weights);  // bad input -> a clear error

    // TODO 1. masked = apply_tril_mask(weights).
    //      2. sums = each row's sum of masked, stored in a (T, 1) Matrix (keep_dims).
    //      3. Return masked / sums: every row sums to 1 again.
    throw not_implemented("exercises/12_tril_mask_renormalize.cpp",
                          "mask_and_renormalize(weights)");
}

}  // namespace attn
