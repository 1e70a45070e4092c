// solutions/11_transfer_weights.cpp — reference solution of Exercise 11: Exercise 3.1.
//
// Source: exercise-solutions.ipynb In [5] (see exercises/11_transfer_weights.cpp). Declared
// in include/attn/self_attention.hpp.
#include "attn/errors.hpp"
#include "attn/linear.hpp"
#include "attn/self_attention.hpp"

#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace attn {

void transfer_weights(const SelfAttention_v2& from, SelfAttention_v1& to) {
    const std::string function = "transfer_weights";
    module_checks::require_same_shape(function, "from.W_key.weight", from.W_key.weight,
                                      from.W_query.weight);
    module_checks::require_same_shape(function, "from.W_value.weight", from.W_value.weight,
                                      from.W_query.weight);
    if (from.qkv_bias()) {
        throw std::invalid_argument(
            function +
            ": the SelfAttention_v2 has biases (qkv_bias=True), but "
            "SelfAttention_v1 computes x @ W and has none: without them the two "
            "modules would not give the same output");
    }
    // v1's matrices are (d_in, d_out): the shape of the TRANSPOSED nn.Linear weights.
    const std::vector<std::size_t> wanted{from.d_in(), from.d_out()};
    for (const auto& [name, matrix] :
         {std::pair<std::string, const Matrix*>{"W_query", &to.W_query},
          {"W_key", &to.W_key},
          {"W_value", &to.W_value}}) {
        if (std::vector<std::size_t>(matrix->shape().begin(), matrix->shape().end()) != wanted) {
            throw shape_error(function + ": the SelfAttention_v1's " + name + " has shape " +
                              shape_string(matrix->shape()) + ", but the SelfAttention_v2's " +
                              name + ".weight is " + shape_string(from.W_query.weight.shape()) +
                              ", so it transposed is " + shape_string(wanted) +
                              " = (d_in, d_out): the two modules must map the same d_in to "
                              "the same d_out");
        }
    }

    // nn.Linear stores weight (d_out, d_in); v1 multiplies x @ W with W (d_in, d_out).
    to.W_query = xt::transpose(from.W_query.weight);
    to.W_key = xt::transpose(from.W_key.weight);
    to.W_value = xt::transpose(from.W_value.weight);
}

}  // namespace attn
