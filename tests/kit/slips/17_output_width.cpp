// tests/kit/slips/17_output_width.cpp — exercise 17's solution with the slips students make,
// each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py runs every one and reads the
// status line). Without ATTN_SLIP it is solutions/17_output_width.cpp and passes every test.
//
// slip: whole_width -> whole output_width
// slip: multiplied -> multiplied, not divided
// slip: book_d_out -> d_out fixed at 2
// slip: answer_hard_coded -> d_out fixed at 1
// slip: d_out_is_num_heads -> d_out = num_heads
// slip: divided_by_two -> the book's num_heads
// slip: one_wide_head -> one head of the whole width
// slip: one_head -> one head (num_heads = 1)
// slip: arguments_swapped -> each other's places
// slip: num_heads_literal -> num_heads fixed at 2
// slip: with_bias -> qkv_bias=True
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/module.hpp"
#include "attn/multi_head_attention.hpp"
#include "slip.hpp"

#include <cstdlib>
#include <string>

namespace attn {

MultiHeadAttentionWrapper wrapper_for_output_width(std::size_t d_in, std::size_t output_width,
                                                   std::size_t context_length,
                                                   std::size_t num_heads, ParameterSource& source) {
    arguments::wrapper_for_output_width(output_width, num_heads);  // bad input -> a clear error

    std::size_t d_out = output_width / num_heads;  // the heads share the features
    if (slip("whole_width")) d_out = output_width;
    if (slip("multiplied")) d_out = output_width * num_heads;
    if (slip("book_d_out")) d_out = 2;
    if (slip("answer_hard_coded")) d_out = 1;
    if (slip("d_out_is_num_heads")) d_out = num_heads;
    if (slip("divided_by_two")) d_out = output_width / 2;

    if (slip("one_wide_head")) {
        return MultiHeadAttentionWrapper(d_in, output_width, context_length, 1, false, source);
    }
    if (slip("one_head")) {
        return MultiHeadAttentionWrapper(d_in, d_out, context_length, 1, false, source);
    }
    if (slip("arguments_swapped")) {
        return MultiHeadAttentionWrapper(d_in, num_heads, context_length, d_out, false, source);
    }
    if (slip("num_heads_literal")) {
        return MultiHeadAttentionWrapper(d_in, d_out, context_length, 2, false, source);
    }
    if (slip("with_bias")) {
        return MultiHeadAttentionWrapper(d_in, d_out, context_length, num_heads, true, source);
    }
    return MultiHeadAttentionWrapper(d_in, d_out, context_length, num_heads, /*qkv_bias=*/false,
                                     source);
}

}  // namespace attn
