// solutions/17_output_width.cpp — reference solution of Exercise 17: the book's Exercise 3.2.
//
// Source: exercise-solutions.ipynb, Exercise 3.2 (see exercises/17_output_width.cpp). Declared
// in include/attn/multi_head_attention.hpp. The wrapper's forward is exercise 16's; the kit
// links its reference solution.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/module.hpp"
#include "attn/multi_head_attention.hpp"

namespace attn {

MultiHeadAttentionWrapper wrapper_for_output_width(std::size_t d_in, std::size_t output_width,
                                                   std::size_t context_length,
                                                   std::size_t num_heads, ParameterSource& source) {
    arguments::wrapper_for_output_width(output_width, num_heads);  // bad input -> a clear error

    const std::size_t d_out = output_width / num_heads;  // the heads share the features
    return MultiHeadAttentionWrapper(d_in, d_out, context_length, num_heads, /*qkv_bias=*/false,
                                     source);
}

}  // namespace attn
