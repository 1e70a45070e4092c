// exercises/20_fuse_heads.cpp — Exercise 20: a wrapper's heads fused into one
// MultiHeadAttention, "one big matmul instead of many".
//
// The book's §3.6.2 compares the two classes of ch03.ipynb:
//   MultiHeadAttentionWrapper (In [35]): num_heads CausalAttention heads, each its own
//     (head_dim, d_in) W_query, W_key, W_value, run one after the other and concatenated;
//   MultiHeadAttention (In [36]): ONE (d_out, d_in) W_query (and W_key, W_value) for all
//     heads, split into heads by view -> transpose, merged back, then out_proj.
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
// Declared in include/attn/multi_head_attention.hpp (fuse_heads).
// Check your work: `tools/kit check 20`. Stuck? `tools/kit hint 20`.
//
// Goal: show that they are the same computation. split_heads (exercise 19) gives head h the
// features [h * head_dim, (h + 1) * head_dim) of the fused projection, which are computed by
// the ROWS [h * head_dim, (h + 1) * head_dim) of its (d_out, d_in) weight: put head h's
// weight there, and fused.forward(x) == wrapper.forward(x).
// The maths, shapes and the notebook's values: include/attn/multi_head_attention.hpp,
// Exercise 20.
// Worked example, 2 heads of head_dim 1, d_in 2: heads' W_query.weight [[1, 2]] and
// [[3, 4]] -> fused W_query.weight [[1, 2], [3, 4]] (d_out 2); out_proj.weight [[1, 0],
// [0, 1]], out_proj.bias [0, 0].
// Build the result with MultiHeadAttention's constructor from its layers:
//   MultiHeadAttention(W_query, W_key, W_value, out_proj, num_heads, context_length)
// xtensor: xt::concatenate(xt::xtuple(a, b), 0) stacks two matrices' rows; for any number of
// heads, make the (d_out, d_in) matrix with xt::zeros and assign each head's block with
// xt::view(m, xt::range(start, stop), xt::all()). xt::eye<float>(n) is the identity.
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"
#include "attn/linear.hpp"
#include "attn/multi_head_attention.hpp"

#include <xtensor/xbuilder.hpp>
#include <xtensor/xview.hpp>

namespace attn {

// [[maybe_unused]] until your code uses it: the stub's body does not.
MultiHeadAttention fuse_heads([[maybe_unused]] const MultiHeadAttentionWrapper& wrapper) {
    // TODO 1. For each of W_query, W_key, W_value: a Linear whose weight is the heads'
    //         weights stacked row after row, (d_out, d_in), and whose bias is their biases
    //         one after another if wrapper.heads[0].W_query.has_bias().
    //      2. out_proj: weight the (d_out, d_out) identity, bias zeros.
    //      3. Return MultiHeadAttention(W_query, W_key, W_value, out_proj, wrapper.num_heads(),
    //         wrapper.context_length()).
    throw not_implemented("exercises/20_fuse_heads.cpp", "fuse_heads(wrapper)");
}

}  // namespace attn
