// exercises/15_causal_attention.cpp — Exercise 15: CausalAttention on a batch (B, T, d_in).
//
// The notebook cell it mirrors, In [34] of the book's chapter 3 notebook:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length),
//                                           diagonal=1))                  make_causal_attention
//   keys = self.W_key(x); queries = self.W_query(x); values = self.W_value(x)
//   attn_scores = queries @ keys.transpose(1, 2)
//   attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
//   attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
//   context_vec = attn_weights @ values                               causal_attention_forward
// Declared in include/attn/causal_attention.hpp (struct CausalAttention, attn::Linear).
// Check your work: `tools/kit check 15`. Stuck? `tools/kit hint 15`.
//
// Goal: everything so far as one module, on a batch of B sequences at once.
// make_causal_attention keeps the three Linear layers and builds the mask buffer once, for
// the longest sequence the module will see (context_length): 1 above the diagonal. forward
// then runs, for each batch item b, the projections (a Linear layer computes x @ weight.T,
// plus its bias when it has one), the scores, the mask's first T rows and columns as -inf
// (T <= context_length tokens), softmax of scores / sqrt(d_out), and the weighted values.
//   x: (B, T, d_in) -> context: (B, T, d_out), item b computed from x[b] alone
// Worked example, one token: T = 1, so the only weight is 1 and context[b][0] = values of
// x[b][0], whatever the scores.
// Every call computes its attention weights from its OWN queries and keys: the book's first
// version reused weights left over from an earlier cell, and two heads with different
// weights then attended alike (a case with two heads catches that).
// Matrix products: xt::linalg::dot on 2-D operands (numpy's dot, not matmul), so loop over
// the batch; xt::view(x, b, xt::all(), xt::all()) is item b as a (T, d_in) view.
#include "attn/causal_attention.hpp"
#include "attn/checks.hpp"
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

CausalAttention make_causal_attention(Linear W_query, Linear W_key, Linear W_value,
                                      std::size_t context_length) {
    const std::string function = "make_causal_attention";
    checks::require_layer_like(function, "W_query", W_query, "W_query", W_query);
    checks::require_layer_like(function, "W_key", W_key, "W_query", W_query);
    checks::require_layer_like(function, "W_value", W_value, "W_query", W_query);
    checks::require_positive("make_causal_attention", "context_length", context_length);

    // TODO: the mask, (context_length, context_length) with 1 above the diagonal (exercise
    // 13's future_mask builds it), and the module: {W_query, W_key, W_value, mask}.
    throw not_implemented("exercises/15_causal_attention.cpp",
                          "make_causal_attention(W_query, W_key, W_value, context_length)");
}

Tensor3 causal_attention_forward(const CausalAttention& module, const Tensor3& x) {
    checks::require_non_empty("causal_attention_forward", "x", x);
    checks::require_length("causal_attention_forward", "x", x, 2, module.W_query.weight.shape(1),
                           "d_in of the weights");
    if (x.shape(1) > module.context_length()) {
        throw shape_error("causal_attention_forward: x has T = " + std::to_string(x.shape(1)) +
                          " tokens, more than the context_length = " +
                          std::to_string(module.context_length()) + " its mask was built for");
    }

    // TODO: for every batch item b: queries, keys, values of x[b]; scores = queries @ keys.T
    // with -inf where module.mask(i, j) is 1 (i, j < T); softmax(scores / sqrt(d_out), -1)
    // @ values into context[b]. The result has shape (B, T, d_out).
    throw not_implemented("exercises/15_causal_attention.cpp",
                          "causal_attention_forward(module, x)");
}

}  // namespace attn
