// solutions/12_tril_mask_renormalize.cpp — reference solution of Exercise 12: the tril mask,
// then renormalise.
//
// Source: ch03.ipynb In [26], In [27] and In [28] (see exercises/12_tril_mask_renormalize.cpp).
// Declared in include/attn/causal_attention.hpp.
#include "attn/arguments.hpp"
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>

namespace attn {

Matrix tril_mask(std::size_t context_length) {
    arguments::tril_mask(context_length);  // bad input -> a clear error

    return xt::tril(xt::ones<float>({context_length, context_length}));
}

Matrix apply_tril_mask(const Matrix& weights) {
    arguments::apply_tril_mask(weights);  // bad input -> a clear error

    return weights * tril_mask(weights.shape(0));
}

Matrix mask_and_renormalize(const Matrix& weights) {
    arguments::mask_and_renormalize(weights);  // bad input -> a clear error

    const Matrix masked = apply_tril_mask(weights);
    const Matrix row_sums = xt::sum(masked, {1}, xt::keep_dims);  // (T, 1)
    return masked / row_sums;
}

}  // namespace attn
