// exercises/16_multi_head_wrapper.cpp — Exercise 16: MultiHeadAttentionWrapper, heads side by
// side.
//
// The notebook cell it mirrors, In [35] of the book's chapter 3 notebook:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   class MultiHeadAttentionWrapper(nn.Module):
//       def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
//           self.heads = nn.ModuleList([CausalAttention(...) for _ in range(num_heads)])
//       def forward(self, x):
//           return torch.cat([head(x) for head in self.heads], dim=-1)
// Declared in include/attn/multi_head_attention.hpp (struct MultiHeadAttentionWrapper).
// Check your work: `tools/kit check 16`. Stuck? `tools/kit hint 16`.
// The notebook's printed tensors, computed in C++ by the kit's solution beside the
// book's: `tools/kit book "ch03.ipynb In [35]"`.
//   attn::TorchGenerator torch(123); MultiHeadAttentionWrapper mha(3, 2, 6, 2, false, torch);
// is the cell's torch.manual_seed(...) and constructor: the same parameters, bit for bit.
//
// Goal: several attention heads over the same tokens. Each head is a CausalAttention
// (exercise 15; the kit links its reference version) with its own weights, so each attends
// to the tokens in its own way. forward runs every head on x and puts their contexts side by
// side along the last axis, head 0 first.
// The module's maths, shapes and the notebook's values: include/attn/multi_head_attention.hpp,
// Exercise 16.
// Which numbers: ch03.ipynb builds the wrapper's heads at torch.manual_seed(123), and the case
//   notebook follows it; notebook_seed42 runs the same cell at seed 42.
//   `tools/kit show 16 notebook` prints one of them with its source.
// Worked example, two heads of d_out 1 on one token: head 0 gives [[[0.5]]], head 1
// [[[-2.0]]], so the wrapper gives [[[0.5, -2.0]]] (shape (1, 1, 2)).
// Inside forward the module's members are in scope: heads (a std::vector<CausalAttention>),
// num_heads(), and d_out(), which is ALL heads' features (num_heads() * each head's d_out);
// one head's d_out is d_head = heads[0].d_out(). Call heads[h].forward(x) rather than writing
// the head out again: it already has the mask, the scale and the biases right.
// xt::concatenate(xt::xtuple(a, b), 2) joins two Tensor3s along axis 2; for any number of
// heads, with B = x.shape(0), T = x.shape(1) and d_head as above, make the result with
// xt::zeros<float>({B, T, num_heads() * d_head}) and fill head h's block, columns
// [h * d_head, (h + 1) * d_head), with xt::view(context, xt::all(), xt::all(),
// xt::range(h * d_head, (h + 1) * d_head)).
#include "attn/arguments.hpp"
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"
#include "attn/multi_head_attention.hpp"

#include <xtensor/xbuilder.hpp>
#include <xtensor/xview.hpp>

namespace attn {

Tensor3 MultiHeadAttentionWrapper::forward(const Tensor3& x) const {
    // bad input -> a clear error
    arguments::multi_head_attention_wrapper_forward(x, d_in(), context_length());

    // TODO 1. d_head = heads[0].d_out(); context = zeros of shape (B, T, num_heads() * d_head).
    //      2. For every head h: write heads[h].forward(x), (B, T, d_head), into the columns
    //         [h * d_head, (h + 1) * d_head) of context's last axis.
    //      3. Return context, (B, T, d_out()).
    throw not_implemented("exercises/16_multi_head_wrapper.cpp",
                          "MultiHeadAttentionWrapper::forward(x)");
}

}  // namespace attn
