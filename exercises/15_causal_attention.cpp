// exercises/15_causal_attention.cpp — Exercise 15: CausalAttention on a batch (B, T, d_in).
//
// The notebook cell it mirrors, In [34] of the book's chapter 3 notebook:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   def forward(self, x):
//       keys = self.W_key(x); queries = self.W_query(x); values = self.W_value(x)
//       attn_scores = queries @ keys.transpose(1, 2)
//       attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
//       attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
//       context_vec = attn_weights @ values
// Declared in include/attn/causal_attention.hpp (struct CausalAttention, attn::Linear).
// Check your work: `tools/kit check 15`. Stuck? `tools/kit hint 15`.
//
// Goal: everything so far as one module, on a batch of B sequences at once. The constructor
// (in the header, as __init__ is in the notebook) keeps the three Linear layers and builds the
// mask buffer once, for the longest sequence the module will see (context_length): 1 above
// the diagonal. forward runs exercise 13's causal attention on each batch item b, from x[b]
// alone, with the mask's first T rows and columns (T <= context_length tokens).
// The module's maths, shapes and the notebook's values: include/attn/causal_attention.hpp,
// Exercise 15.
// Which numbers: ch03.ipynb builds CausalAttention at torch.manual_seed(123), and the cases
//   notebook, two_heads_notebook and bias_notebook_seed123 follow it; the *_seed42 cases run the
//   same cells at seed 42.
//   `tools/kit show 15 notebook` prints one of them with its source.
// Worked example, one token: T = 1, so the only weight is 1 and context[b][0] = values of
// x[b][0], whatever the scores.
// Every call computes its attention weights from its OWN queries and keys: the book's first
// version reused weights left over from an earlier cell, and two heads with different
// weights then attended alike (a case with two heads catches that).
// Inside forward the module's members are in scope: W_query, W_key, W_value, mask, d_out().
// Matrix products: xt::linalg::dot on 2-D operands (numpy's dot, not matmul), so loop over
// the batch; xt::view(x, b, xt::all(), xt::all()) is item b as a (T, d_in) view.
#include "attn/arguments.hpp"
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace attn {

Tensor3 CausalAttention::forward(const Tensor3& x) const {
    arguments::causal_attention_forward(x, d_in(), context_length());  // bad input -> a clear error

    // TODO 1. B = x.shape(0), T = x.shape(1); context = zeros of shape (B, T, d_out()).
    //      2. For every batch item b, with xb = x[b] (T, d_in):
    //         a. queries, keys, values = xb @ weight.T of each layer, plus its bias if any;
    //         b. scores = queries @ keys.T, (T, T), set to -inf where mask(i, j) is 1 (i, j < T);
    //         c. context[b] = softmax(scores / sqrt(d_out()), -1) @ values.
    //      3. Return context.
    throw not_implemented("exercises/15_causal_attention.cpp", "CausalAttention::forward(x)");
}

}  // namespace attn
