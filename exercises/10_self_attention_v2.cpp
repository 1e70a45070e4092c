// exercises/10_self_attention_v2.cpp — Exercise 10: SelfAttention_v2, with nn.Linear layers.
//
// The notebook cell it mirrors, In [24] of the book's chapter 3 notebook (Listing 3.2):
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)          (and W_key, W_value)
//   keys = self.W_key(x)
//   queries = self.W_query(x)
//   values = self.W_value(x)
//   ... then exactly as SelfAttention_v1 (exercise 09)
// and, at torch.manual_seed(123), In [4] and In [7] of the book's exercise solutions:
//   https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/exercise-solutions.ipynb
// Declared in include/attn/self_attention.hpp; attn::Linear is in include/attn/linear.hpp.
// Check your work: `tools/kit check 10`. Stuck? `tools/kit hint 10`.
// The notebook's printed tensors, computed in C++ by the kit's solution beside the
// book's: `tools/kit book "ch03.ipynb In [24]" "004 text"`.
//   attn::TorchGenerator torch(42); attn::SelfAttention_v2 sa_v2(3, 2, false, torch);
// is the cell's torch.manual_seed(...) and constructor: the same parameters, bit for bit.
//
// Goal: exercise 09 with linear layers. A Linear holds `weight`, of shape (d_out, d_in), and
// `bias`, of shape (d_out,) or empty (bias=False). It maps each token (a row of x) as
//   layer(x) = x @ weight.T + bias                  x: (T, d_in) -> (T, d_out)
// weight is stored transposed, one row per output dimension: that is nn.Linear's layout.
// Then the attention is exercise 09's.
// The module's maths, shapes and the notebook's values: include/attn/self_attention.hpp,
// Exercise 10.
// Which numbers: ch03.ipynb builds SelfAttention_v2 at torch.manual_seed(789), and the case
//   notebook_seed789 follows it; notebook_seed123 follows exercise-solutions.ipynb (seed 123), and
//   notebook_seed42 runs the cell at seed 42.
//   `tools/kit show 10 notebook_seed789` prints one of them with its source.
// Worked example of one layer: weight = [[1, 0, 2]] (d_out 1, d_in 3), bias = [0.5],
//   x = [[1, 1, 1]] -> x @ weight.T + bias = [[1 + 0 + 2 + 0.5]] = [[3.5]].
// Add the bias only when there is one (`layer.has_bias()`); xtensor broadcasts a (d_out,)
// vector over the rows of a (T, d_out) matrix. A lambda inside forward() that applies one
// Linear keeps it short.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/linear.hpp"
#include "attn/self_attention.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include <cmath>

namespace attn {

Matrix SelfAttention_v2::forward(const Matrix& x) const {
    arguments::self_attention_v2_forward(x, W_query, W_key, W_value);  // bad input -> a clear error

    // TODO 1. queries = x @ W_query.weight.T, plus W_query.bias if W_query.has_bias(); keys
    //         and values likewise with W_key and W_value: (T, d_out) each.
    //      2. scores = queries @ keys.T, (T, T).
    //      3. weights = softmax(scores / sqrt(d_k), -1), d_k = keys.shape(1).
    //      4. Return weights @ values, (T, d_out).
    throw not_implemented("exercises/10_self_attention_v2.cpp", "SelfAttention_v2::forward(x)");
}

}  // namespace attn
