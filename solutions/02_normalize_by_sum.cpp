// solutions/02_normalize_by_sum.cpp — reference solution of Exercise 02: naive normalisation.
//
// Source: ch03.ipynb In [5] (the address is in exercises/02_normalize_by_sum.cpp).
// Declared in include/attn/simple_attention.hpp.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor/xmath.hpp>

namespace attn {

Vector normalize_by_sum(const Vector& scores) {
    arguments::normalize_by_sum(scores);  // bad input -> a clear error

    return scores / xt::sum(scores)();
}

}  // namespace attn
