// tests/kit/slips/15_causal_attention.cpp — solutions/15_causal_attention.cpp with the slips
// students make in it, each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py runs them
// all). Without ATTN_SLIP it is the solution and must pass every test.
//
// The mask: where it is applied, with what, over which range, and read which way round.
// slip: no_mask -> no causal mask
// slip: masked_after_softmax -> masked after softmax without renormalising
// slip: filled_zero -> masked with 0 instead of -inf
// slip: mask_tested_equal_zero -> the future leaks in
//   (`mask(i, j) == 0`, the loops right, < T: every token sees only the future, the last none.
//   On one_token its nan is that of mask_loop_to_context_length, but that slip throws where
//   T > 1 on the truncated case (MANIFEST.json's "throws"), so a result there rules it out.)
// slip: mask_loop_to_context_length -> mask loop ran past T
// The scores, their scale and the softmax.
// slip: not_scaled -> left out the / sqrt(d_k)
// slip: scaled_by_d_in -> divided by sqrt(d_in) instead of sqrt(d_k)
// slip: column_softmax -> softmax over the columns
// slip: keys_queries_swapped -> computed keys @ queries.T
// The projections and the batch.
// slip: weights_not_transposed -> multiplied by the weight without transposing it
// slip: bias_ignored -> left out the biases
// slip: first_item_only -> every batch item computed from the first one
// not yet named: stale_weights (the weights kept in a `static` from the first call: "20 of 24
//   values differ; worst at [0, 4, 1]: got 0.246201, expected 0.256661", unnamed; the recorded
//   stale_weights is head 1 reusing head 0's, not weights kept across calls)
#include "attn/arguments.hpp"
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "slip.hpp"

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

    const std::size_t B = x.shape(0), T = x.shape(1), d_out = W_query.weight.shape(0);
    float scale = std::sqrt(static_cast<float>(d_out));
    if (slip("not_scaled")) scale = 1.0f;
    if (slip("scaled_by_d_in")) scale = std::sqrt(static_cast<float>(x.shape(2)));
    const float fill = slip("filled_zero") ? 0.0f : -std::numeric_limits<float>::infinity();
    // The mask's loops run over T tokens, or (the slip) over the whole buffer.
    const std::size_t mask_rows = slip("mask_loop_to_context_length") ? context_length() : T;
    Tensor3 context = xt::zeros<float>({B, T, d_out});
    for (std::size_t b = 0; b < B; ++b) {
        // x[0] for every batch item: the index of the loop left out
        const std::size_t item = slip("first_item_only") ? 0 : b;
        const Matrix x_b = xt::view(x, item, xt::all(), xt::all());  // (T, d_in)
        // x_b @ layer.weight.T (+ bias, broadcast along the rows): (T, d_in) -> (T, d_out)
        const auto project = [&x_b](const Linear& layer) {
            Matrix projected = slip("weights_not_transposed")
                                   ? Matrix(xt::linalg::dot(x_b, layer.weight))
                                   : Matrix(xt::linalg::dot(x_b, xt::transpose(layer.weight)));
            if (layer.has_bias() && !slip("bias_ignored")) projected += layer.bias;
            return projected;
        };
        const Matrix queries = project(W_query);  // (T, d_out)
        const Matrix keys = project(W_key);
        const Matrix values = project(W_value);

        Matrix scores = slip("keys_queries_swapped")
                            ? Matrix(xt::linalg::dot(keys, xt::transpose(queries)))
                            : Matrix(xt::linalg::dot(queries, xt::transpose(keys)));  // (T, T)
        const bool masked = !slip("no_mask") && !slip("masked_after_softmax");
        for (std::size_t i = 0; masked && i < mask_rows; ++i) {
            for (std::size_t j = 0; j < mask_rows; ++j) {
                // mask[:T, :T]; the slip: `== 0`, the test of exercise 12's tril mask
                const bool hidden =
                    slip("mask_tested_equal_zero") ? mask(i, j) == 0.0f : mask(i, j) != 0.0f;
                if (hidden) scores(i, j) = fill;
            }
        }
        // The weights kept from the first call, as the book's first CausalAttention.forward
        // softmaxed a global `masked` left over from an earlier cell.
        static Matrix kept;
        Matrix weights = softmax(Matrix(scores / scale), slip("column_softmax") ? 0 : -1);
        if (slip("stale_weights")) {
            if (kept.size() == 0 || kept.shape() != weights.shape()) kept = weights;
            weights = kept;
        }
        if (slip("masked_after_softmax")) {
            for (std::size_t i = 0; i < T; ++i) {
                for (std::size_t j = 0; j < T; ++j) {
                    if (mask(i, j) != 0.0f) weights(i, j) = 0.0f;
                }
            }
        }
        xt::view(context, b, xt::all(), xt::all()) = xt::linalg::dot(weights, values);
    }
    return context;
}

}  // namespace attn
