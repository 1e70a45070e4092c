// exercises/11_transfer_weights.cpp — Exercise 11: the book's Exercise 3.1, v2's weights in v1.
//
// The notebook cell it mirrors, In [5] of the book's exercise solutions for chapter 3:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/exercise-solutions.ipynb
//   sa_v1.W_query = torch.nn.Parameter(sa_v2.W_query.weight.T)
//   sa_v1.W_key = torch.nn.Parameter(sa_v2.W_key.weight.T)
//   sa_v1.W_value = torch.nn.Parameter(sa_v2.W_value.weight.T)
// after which sa_v1(inputs) and sa_v2(inputs) print the same tensor (In [6], In [7]).
// Declared in include/attn/self_attention.hpp.
// Check your work: `tools/kit check 11`. Stuck? `tools/kit hint 11`.
//
// Goal: show that SelfAttention_v1 (exercise 09) and SelfAttention_v2 (exercise 10) are the
// same computation. They differ at one seed only because their weights start differently.
// Copy the three weights of `from` (a v2) into `to` (a v1), so that afterwards
// to.forward(x) == from.forward(x) for every x.
// The maths, shapes and the notebook's values: include/attn/self_attention.hpp, Exercise 11.
// Worked example: d_in 3, d_out 2, from.W_query.weight = [[1, 2, 3],
//                                                          [4, 5, 6]]
//   -> to.W_query = [[1, 4],
//                    [2, 5],
//                    [3, 6]]
// Careful: assigning a Matrix of another shape to to.W_query does not fail in C++ (xtensor
// resizes the target), where PyTorch's copy_ would refuse. The check at the top of the
// function (arguments::transfer_weights, in attn/arguments.hpp) refuses a `to` of the wrong
// shape, or a `from` with biases, before anything is copied.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/linear.hpp"
#include "attn/self_attention.hpp"

#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

namespace attn {

void transfer_weights(const SelfAttention_v2& from, SelfAttention_v1& to) {
    arguments::transfer_weights(from, to);  // bad input -> a clear error

    // TODO 1. to.W_query = from.W_query.weight transposed, (d_out, d_in) -> (d_in, d_out).
    //      2. to.W_key and to.W_value the same way, from from.W_key and from.W_value.
    throw not_implemented("exercises/11_transfer_weights.cpp", "transfer_weights(from, to)");
}

}  // namespace attn
