// solutions/14_dropout.cpp — reference solution of Exercise 14: inverted dropout.
//
// Source: ch03.ipynb In [31] and In [32] (see exercises/14_dropout.cpp). Declared in
// include/attn/causal_attention.hpp.
#include "attn/causal_attention.hpp"
#include "attn/checks.hpp"
#include "attn/errors.hpp"

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xoperation.hpp>

#include <stdexcept>
#include <string>

namespace attn {

Matrix dropout(const Matrix& x, const Matrix& keep, float p, [[maybe_unused]] bool training) {
    if (keep.shape() != x.shape()) {
        throw shape_error("dropout: keep has shape " + shape_string(keep.shape()) +
                          ", but it must have x's shape " + shape_string(x.shape()));
    }
    if (!(p >= 0.0f && p <= 1.0f)) {
        throw std::invalid_argument("dropout: p = " + std::to_string(p) +
                                    " is not a probability: it must lie in [0, 1]");
    }
    if (!xt::all(xt::equal(keep, 0.0f) || xt::equal(keep, 1.0f))) {
        throw std::invalid_argument(
            "dropout: keep holds a value other than 0 or 1 (1 keeps "
            "an entry, 0 drops it)");
    }

    if (!training) return x;
    if (p == 1.0f) return xt::zeros_like(x);
    return x * keep / (1.0f - p);
}

}  // namespace attn
