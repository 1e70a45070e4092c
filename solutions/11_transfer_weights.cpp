// solutions/11_transfer_weights.cpp — reference solution of Exercise 11: Exercise 3.1.
//
// Source: exercise-solutions.ipynb In [5] (see exercises/11_transfer_weights.cpp). Declared
// in include/attn/self_attention.hpp.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/linear.hpp"
#include "attn/self_attention.hpp"

#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

namespace attn {

void transfer_weights(const SelfAttention_v2& from, SelfAttention_v1& to) {
    arguments::transfer_weights(from, to);  // bad input -> a clear error

    // nn.Linear stores weight (d_out, d_in); v1 multiplies x @ W with W (d_in, d_out).
    to.W_query = xt::transpose(from.W_query.weight);
    to.W_key = xt::transpose(from.W_key.weight);
    to.W_value = xt::transpose(from.W_value.weight);
}

}  // namespace attn
