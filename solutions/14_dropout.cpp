// solutions/14_dropout.cpp — reference solution of Exercise 14: inverted dropout.
//
// Source: ch03.ipynb In [31] and In [32] (see exercises/14_dropout.cpp). Declared in
// include/attn/causal_attention.hpp.
#include "attn/arguments.hpp"
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xoperation.hpp>

#include <stdexcept>
#include <string>

namespace attn {

Matrix dropout(const Matrix& x, const Matrix& keep, float p, [[maybe_unused]] bool training) {
    arguments::dropout(x, keep, p);  // bad input -> a clear error

    if (!training) return x;
    if (p == 1.0f) return xt::zeros_like(x);
    return x * keep / (1.0f - p);
}

}  // namespace attn
