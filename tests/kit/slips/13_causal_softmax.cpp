// tests/kit/slips/13_causal_softmax.cpp — solutions/13_causal_softmax.cpp with the slips
// students make in it, each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py runs them
// all). Without ATTN_SLIP it is the solution and must pass every test.
//
// The mask of the future: which triangle, and the diagonal.
// slip: tril_mask_built -> built the tril mask
// slip: diagonal_included -> put 1s on the diagonal too
// The -inf fill, as a loop over the scores: its value and its bounds.
// slip: filled_zero -> instead of -inf
// slip: diagonal_masked -> masked the diagonal too
// slip: past_masked -> masked the past instead of the future
// The weights: the scale and the softmax.
// slip: not_scaled -> left out the / sqrt(d_k)
// slip: divided_by_d_k -> divided by d_k instead of sqrt(d_k)
// slip: masked_after_softmax -> masked after softmax without renormalising
// slip: column_softmax -> softmax over the columns
// slip: no_mask -> no causal mask
// slip: masked_with_the_mask_times_inf -> a mask multiplied in
//   (scores + mask * -inf: 0 * -inf is nan everywhere. Its one_token case equals "masked the
//   diagonal too", which the other cases rule out; the causal law is not read on nan values.)
#include "attn/arguments.hpp"
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "slip.hpp"

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>

#include <cmath>
#include <limits>

namespace attn {

Matrix future_mask(std::size_t context_length) {
    arguments::future_mask(context_length);  // bad input -> a clear error

    const Matrix ones = xt::ones<float>({context_length, context_length});
    if (slip("tril_mask_built")) return xt::tril(ones);
    if (slip("diagonal_included")) return xt::triu(ones);  // diagonal=1 left out
    return xt::triu(ones, 1);
}

Matrix mask_future(const Matrix& scores) {
    arguments::mask_future(scores);  // bad input -> a clear error

    const std::size_t T = scores.shape(0);
    const float fill = slip("filled_zero") ? 0.0f : -std::numeric_limits<float>::infinity();
    Matrix masked = scores;
    for (std::size_t i = 0; i < T; ++i) {
        if (slip("past_masked")) {  // j < i: the keys before the query
            for (std::size_t j = 0; j < i; ++j) masked(i, j) = fill;
            continue;
        }
        const std::size_t first = slip("diagonal_masked") ? i : i + 1;
        for (std::size_t j = first; j < T; ++j) {
            masked(i, j) = fill;
        }
    }
    return masked;
}

Matrix causal_attention_weights(const Matrix& scores, std::size_t d_k) {
    arguments::causal_attention_weights(scores, d_k);  // bad input -> a clear error

    float scale = std::sqrt(static_cast<float>(d_k));
    if (slip("not_scaled")) scale = 1.0f;
    if (slip("divided_by_d_k")) scale = static_cast<float>(d_k);
    if (slip("masked_after_softmax")) {
        const Matrix weights = softmax(Matrix(scores / scale), -1);
        return weights * (1.0f - future_mask(scores.shape(0)));
    }
    if (slip("no_mask")) return softmax(Matrix(scores / scale), -1);
    if (slip("masked_with_the_mask_times_inf")) {  // scores + mask * -inf: 0 * inf is nan
        const Matrix hidden =
            future_mask(scores.shape(0)) * -std::numeric_limits<float>::infinity();
        return softmax(Matrix((scores + hidden) / scale), -1);
    }
    const Matrix scaled = mask_future(scores) / scale;
    return softmax(scaled, slip("column_softmax") ? 0 : -1);
}

}  // namespace attn
