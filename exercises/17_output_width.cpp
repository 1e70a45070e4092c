// exercises/17_output_width.cpp — Exercise 17: the book's Exercise 3.2, a two-dimensional
// output from two heads by changing one argument.
//
// The exercise, from the book's exercise solutions (Exercise 3.2):
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/exercise-solutions.ipynb
//   "Change the input arguments for the MultiHeadAttentionWrapper(..., num_heads=2) call such
//    that the output context vectors are two-dimensional instead of four-dimensional while
//    keeping the setting num_heads=2."
//   torch.manual_seed(123)
//   mha = MultiHeadAttentionWrapper(d_in, d_out=1, context_length, 0.0, num_heads=2)
// Declared in include/attn/multi_head_attention.hpp (wrapper_for_output_width).
// Check your work: `tools/kit check 17`. Stuck? `tools/kit hint 17`.
// The notebook's printed tensor, computed in C++ by the kit's solution beside the book's:
// `tools/kit book "exercise-solutions.ipynb Exercise 3.2"` (the course's copy of the cell
// prints a wrong tensor there: the stale `masked` of exercise 15). attn::TorchGenerator
// torch(42), In [35]'s wrapper drawn from it, then
//   MultiHeadAttentionWrapper mha(3, 1, 6, 2, false, torch);
// is the cell's torch.manual_seed(42) and constructors: the same parameters, bit for bit.
//
// Goal: choose the heads' size, not change the class. Exercise 16's wrapper returns every
// head's d_out features side by side, num_heads * d_out in all.
// The maths, shapes and the notebook's values: include/attn/multi_head_attention.hpp,
// Exercise 17.
// Build the wrapper with its constructor from sizes:
//   MultiHeadAttentionWrapper(d_in, d_out, context_length, num_heads, /*qkv_bias=*/false,
//                             source)
// `source` supplies the parameters (the recorded PyTorch weights, or a rule); it refuses a
// weight of the wrong size, naming it, so a wrong d_out shows at once.
// Worked example: output_width 6 and num_heads 3 give heads of d_out 2, and forward(x) then
// has shape (B, T, 6).
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/module.hpp"
#include "attn/multi_head_attention.hpp"

namespace attn {

// [[maybe_unused]] until your code uses them: the stub's body does not.
MultiHeadAttentionWrapper wrapper_for_output_width([[maybe_unused]] std::size_t d_in,
                                                   std::size_t output_width,
                                                   [[maybe_unused]] std::size_t context_length,
                                                   std::size_t num_heads,
                                                   [[maybe_unused]] ParameterSource& source) {
    arguments::wrapper_for_output_width(output_width, num_heads);  // bad input -> a clear error

    // TODO 1. d_out = output_width / num_heads, the features of one head.
    //      2. Return MultiHeadAttentionWrapper(d_in, d_out, context_length, num_heads,
    //         /*qkv_bias=*/false, source).
    throw not_implemented("exercises/17_output_width.cpp",
                          "wrapper_for_output_width(d_in, output_width, context_length, "
                          "num_heads, source)");
}

}  // namespace attn
