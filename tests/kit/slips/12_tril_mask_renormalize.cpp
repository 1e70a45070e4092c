// tests/kit/slips/12_tril_mask_renormalize.cpp — solutions/12_tril_mask_renormalize.cpp with
// the slips students make in it, each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py
// runs them all). Without ATTN_SLIP it is the solution and must pass every test.
//
// The mask's triangle and diagonal: a slip in tril_mask reaches the two functions that use it.
// slip: triu_mask -> triu instead of tril
// slip: diagonal_left_out -> j < i
// slip: future_ones -> put the 1s above the diagonal
// The renormalisation: which sums, and when.
// slip: column_sums -> divided by the column sums
// slip: total_sum -> divided by the sum of the whole matrix
// slip: no_keep_dims -> without keep_dims
// slip: softmax_again -> applied softmax to the masked weights
// slip: renormalized_before_masking -> renormalised first, then masked
// slip: abs_row_sums -> divided by the row sums of |x|
#include "attn/arguments.hpp"
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "slip.hpp"

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>

namespace attn {

Matrix tril_mask(std::size_t context_length) {
    arguments::tril_mask(context_length);  // bad input -> a clear error

    const Matrix ones = xt::ones<float>({context_length, context_length});
    if (slip("triu_mask")) return xt::triu(ones);
    if (slip("diagonal_left_out")) {  // the loop j < i, where j <= i belongs
        Matrix mask = xt::zeros<float>({context_length, context_length});
        for (std::size_t i = 0; i < context_length; ++i) {
            for (std::size_t j = 0; j < i; ++j) mask(i, j) = 1.0f;
        }
        return mask;
    }
    if (slip("future_ones")) return xt::triu(ones, 1);  // exercise 13's mask
    return xt::tril(ones);
}

Matrix apply_tril_mask(const Matrix& weights) {
    arguments::apply_tril_mask(weights);  // bad input -> a clear error

    return weights * tril_mask(weights.shape(0));
}

Matrix mask_and_renormalize(const Matrix& weights) {
    arguments::mask_and_renormalize(weights);  // bad input -> a clear error

    if (slip("renormalized_before_masking")) {
        const Matrix row_sums = xt::sum(weights, {1}, xt::keep_dims);
        return apply_tril_mask(weights / row_sums);
    }
    const Matrix masked = apply_tril_mask(weights);
    if (slip("column_sums")) {
        const Matrix column_sums = xt::sum(masked, {0}, xt::keep_dims);  // (1, T)
        return masked / column_sums;
    }
    if (slip("total_sum")) return masked / xt::sum(masked)();
    if (slip("no_keep_dims")) {
        const Vector row_sums = xt::sum(masked, {1});  // (T,): broadcasts along the rows
        return masked / row_sums;
    }
    if (slip("softmax_again")) return softmax(masked, -1);
    if (slip("abs_row_sums")) {
        const Matrix row_sums = xt::sum(xt::abs(masked), {1}, xt::keep_dims);
        return masked / row_sums;
    }
    const Matrix row_sums = xt::sum(masked, {1}, xt::keep_dims);  // (T, 1)
    return masked / row_sums;
}

}  // namespace attn
