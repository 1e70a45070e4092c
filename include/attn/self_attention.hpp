// attn/self_attention.hpp — exercises 09–11: self-attention as a module with trainable weights.
//
// Mirrors §3.4.2 of the book "Build a Large Language Model (From Scratch)" and its
// Exercise 3.1. The cells are public:
//   ch03.ipynb, the chapter 3 notebook:
//     https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   exercise-solutions.ipynb, the solution of Exercise 3.1:
//     https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/exercise-solutions.ipynb
//
// Convention (row convention, as in PyTorch): a token is a ROW. x has shape (T, d_in);
// the module projects every token to d_out dimensions and returns one context vector per
// token, shape (T, d_out). Inside forward():
//   queries = x W_q, keys = x W_k, values = x W_v          each (T, d_out)
//   scores  = queries @ keys.T                              (T, T): query i against key j
//   weights = softmax(scores / sqrt(d_k), dim=-1)           d_k = d_out; each row sums to 1
//   context = weights @ values                              (T, d_out)
// Dividing by sqrt(d_k) is what makes it "scaled dot-product attention": without it the
// scores grow with d_k and softmax turns into a near one-hot step.
//
// A module is a small value type that holds its parameters under PyTorch's names and shapes,
// the keys of the PyTorch module's state_dict():
//   SelfAttention_v1: W_query, W_key, W_value                          each (d_in, d_out)
//   SelfAttention_v2: W_query.weight, W_key.weight, W_value.weight     each (d_out, d_in)
//                     and, with qkv_bias=True, W_query.bias, ...       each (d_out,)
// It is built from explicit parameters (the kit's tests load them from a case's files, named
// exactly like those keys: W_query.weight.npy, ...); nothing here draws random numbers.
// The constructors check the parameters' shapes and throw attn::shape_error naming the
// problem; forward() checks x (the stubs already contain that check).
#pragma once

#include "attn/errors.hpp"
#include "attn/linear.hpp"
#include "attn/tensor.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace attn {

// Shape checks of the modules below, shared by their constructors, forward() and exercise 11.
namespace module_checks {

// The three projections of a module have one shape: "W_key has shape (3, 4), but W_query
// has (3, 2)".
inline void require_same_shape(const std::string& module, const std::string& name,
                               const Matrix& matrix, const Matrix& first) {
    if (matrix.shape() != first.shape()) {
        throw shape_error(module + ": " + name + " has shape " + shape_string(matrix.shape()) +
                          ", but W_query has " + shape_string(first.shape()) +
                          "; the three projections map d_in to the same d_out");
    }
}

inline void require_non_empty(const std::string& module, const Matrix& matrix) {
    if (matrix.size() == 0) {
        throw shape_error(module + ": W_query is empty: shape " + shape_string(matrix.shape()));
    }
}

// forward(x) needs tokens whose d_in matches the parameters: "SelfAttention_v1.forward: x has
// shape (6, 4), but W_query has shape (3, 2): ...". `rows_are_d_in`: v1's (d_in, d_out)
// matrices; false for nn.Linear's (d_out, d_in) weights.
inline void require_tokens(const std::string& function, const Matrix& x,
                           const std::string& parameter, const Matrix& matrix, bool rows_are_d_in) {
    if (x.size() == 0) {
        throw shape_error(function + ": x is empty: shape " + shape_string(x.shape()));
    }
    const std::size_t d_in = matrix.shape(rows_are_d_in ? 0 : 1);
    if (x.shape(1) != d_in) {
        throw shape_error(function + ": x has shape " + shape_string(x.shape()) + ", but " +
                          parameter + " has shape " + shape_string(matrix.shape()) +
                          ": x's columns must equal d_in = " + std::to_string(d_in) +
                          (rows_are_d_in
                               ? ", the rows of " + parameter +
                                     " (d_in, d_out); a weight of nn.Linear, (d_out, d_in), goes "
                                     "into SelfAttention_v1 transposed"
                               : ", the columns of " + parameter + " (d_out, d_in)"));
    }
}

}  // namespace module_checks

// ---- Exercise 09 — SelfAttention_v1 (book §3.4.2, Listing 3.1) ---------------------------
// ch03.ipynb In [23]:
//   class SelfAttention_v1(nn.Module):
//       self.W_query = nn.Parameter(torch.rand(d_in, d_out))     (and W_key, W_value)
//       def forward(self, x):
//           keys = x @ self.W_key; queries = x @ self.W_query; values = x @ self.W_value
//           attn_scores = queries @ keys.T
//           attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
//           return attn_weights @ values
// Parameters: W_query, W_key, W_value, each (d_in, d_out), used as x @ W (row convention).
// forward: x (T, d_in) -> context vectors (T, d_out).
// Printed values on the six "Your journey starts with one step" inputs (d_in 3, d_out 2):
//   torch.manual_seed(123), ch03.ipynb In [23]:  [[0.2996, 0.8053], [0.3061, 0.8210],
//     [0.3058, 0.8203], [0.2948, 0.7939], [0.2927, 0.7891], [0.2990, 0.8040]]
//   torch.manual_seed(42) (the same cell at seed 42): [[1.3751, 0.8610], [1.4201, 0.8892],
//     [1.4198, 0.8890], [1.3533, 0.8476], [1.3746, 0.8606], [1.3620, 0.8532]]
//   Row 1 is context_vec_2 of §3.4.1, computed there one query at a time.
struct SelfAttention_v1 {
    Matrix W_query;  // (d_in, d_out)
    Matrix W_key;    // (d_in, d_out)
    Matrix W_value;  // (d_in, d_out)

    // Throws shape_error unless the three are non-empty and of one shape (d_in, d_out).
    SelfAttention_v1(Matrix W_query_, Matrix W_key_, Matrix W_value_)
        : W_query(std::move(W_query_)), W_key(std::move(W_key_)), W_value(std::move(W_value_)) {
        module_checks::require_non_empty("SelfAttention_v1", W_query);
        module_checks::require_same_shape("SelfAttention_v1", "W_key", W_key, W_query);
        module_checks::require_same_shape("SelfAttention_v1", "W_value", W_value, W_query);
    }

    std::size_t d_in() const { return W_query.shape(0); }
    std::size_t d_out() const { return W_query.shape(1); }

    // Exercise 09. x: (T, d_in) -> (T, d_out). x with another number of columns than d_in
    // throws shape_error, as do parameters whose shapes no longer agree (they are public).
    Matrix forward(const Matrix& x) const;
    Matrix operator()(const Matrix& x) const { return forward(x); }  // sa_v1(inputs)
};

// ---- Exercise 10 — SelfAttention_v2 (book §3.4.2, Listing 3.2) ---------------------------
// ch03.ipynb In [24]:
//   class SelfAttention_v2(nn.Module):
//       def __init__(self, d_in, d_out, qkv_bias=False):
//           self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)     (and W_key, W_value)
//       def forward(self, x):
//           keys = self.W_key(x); queries = self.W_query(x); values = self.W_value(x)
//           ... then exactly as SelfAttention_v1
// Parameters: three attn::Linear layers (attn/linear.hpp). nn.Linear computes
//   layer(x) = x @ weight.T + bias         weight (d_out, d_in), bias (d_out,) or none
// so a Linear's weight is the TRANSPOSE of v1's matrix. With bias=False, bias is empty.
// forward: x (T, d_in) -> context vectors (T, d_out).
// Printed values on the six inputs (d_in 3, d_out 2), bias=False:
//   torch.manual_seed(789), ch03.ipynb In [24]:  [[-0.0739, 0.0713], [-0.0748, 0.0703],
//     [-0.0749, 0.0702], [-0.0760, 0.0685], [-0.0763, 0.0679], [-0.0754, 0.0693]]
//   torch.manual_seed(123), exercise-solutions.ipynb In [4], In [7]: [[-0.5337, -0.1051],
//     [-0.5323, -0.1080], [-0.5323, -0.1079], [-0.5297, -0.1076], [-0.5311, -0.1066],
//     [-0.5299, -0.1081]]
//   torch.manual_seed(42) (ch03.ipynb In [24] at seed 42): [[0.3755, 0.2777],
//     [0.3761, 0.2831], [0.3761, 0.2833], [0.3768, 0.2763], [0.3754, 0.2836], [0.3772, 0.2746]]
// v1 and v2 differ at one seed only because nn.Linear initialises its weights differently
// from torch.rand; exercise 11 shows that they compute the same function.
struct SelfAttention_v2 {
    Linear W_query;  // weight (d_out, d_in), bias (d_out,) or empty
    Linear W_key;
    Linear W_value;

    // Throws shape_error unless the three weights are non-empty and of one shape
    // (d_out, d_in), and the biases are all empty (qkv_bias=False) or all of shape (d_out,).
    SelfAttention_v2(Linear W_query_, Linear W_key_, Linear W_value_)
        : W_query(std::move(W_query_)), W_key(std::move(W_key_)), W_value(std::move(W_value_)) {
        const std::string module = "SelfAttention_v2";
        module_checks::require_non_empty(module, W_query.weight);
        module_checks::require_same_shape(module, "W_key.weight", W_key.weight, W_query.weight);
        module_checks::require_same_shape(module, "W_value.weight", W_value.weight, W_query.weight);
        const bool bias = W_query.has_bias();
        for (const auto& [name, layer] :
             {std::pair<std::string, const Linear*>{"W_query", &W_query},
              {"W_key", &W_key},
              {"W_value", &W_value}}) {
            if (layer->has_bias() != bias) {
                throw shape_error(module + ": " + name + (bias ? " has no bias" : " has a bias") +
                                  ", but W_query " + (bias ? "has one" : "has none") +
                                  "; qkv_bias gives all three layers a bias or none");
            }
            if (bias && layer->bias.size() != d_out()) {
                throw shape_error(module + ": " + name + ".bias has shape " +
                                  shape_string(layer->bias.shape()) + ", but d_out = " +
                                  std::to_string(d_out()) + " (the rows of " + name + ".weight)");
            }
        }
    }

    std::size_t d_in() const { return W_query.weight.shape(1); }
    std::size_t d_out() const { return W_query.weight.shape(0); }
    bool qkv_bias() const { return W_query.has_bias(); }

    // Exercise 10. x: (T, d_in) -> (T, d_out). x with another number of columns than d_in
    // throws shape_error.
    Matrix forward(const Matrix& x) const;
    Matrix operator()(const Matrix& x) const { return forward(x); }  // sa_v2(inputs)
};

// ---- Exercise 11 — Exercise 3.1: v2's weights in v1 -------------------------------------
// exercise-solutions.ipynb In [5] (the book's Exercise 3.1):
//   sa_v1.W_query = torch.nn.Parameter(sa_v2.W_query.weight.T)       (and W_key, W_value)
// Copies the three weights of `from` into `to`, transposed: v1's W_query (d_in, d_out) is
// v2's W_query.weight.T. Afterwards to.forward(x) equals from.forward(x) for every x
// (exercise-solutions.ipynb In [6] and In [7] print the same tensor, the seed-123 values of
// exercise 10): nn.Linear without bias IS x @ W, its weight only stored transposed.
// Throws, leaving `to` unchanged:
//   shape_error            when to's W_query is not (from.d_in(), from.d_out()), the shape
//                          of the transposed weights (for instance a v1 built for another
//                          d_in), naming both shapes;
//   std::invalid_argument  when `from` has biases (qkv_bias=True): v1 has nowhere to put
//                          them, and leaving them out would change the output.
// Exercise 11's argument checks: `from` without biases, and `to` holding (d_in, d_out)
// matrices, the shape of from's weights transposed. Throws before anything is copied.
namespace module_checks {

inline void require_transferable(const std::string& function, const SelfAttention_v2& from,
                                 const SelfAttention_v1& to) {
    require_same_shape(function, "from.W_key.weight", from.W_key.weight, from.W_query.weight);
    require_same_shape(function, "from.W_value.weight", from.W_value.weight, from.W_query.weight);
    if (from.qkv_bias()) {
        throw std::invalid_argument(function +
                                    ": the SelfAttention_v2 has biases (qkv_bias=True), but "
                                    "SelfAttention_v1 computes x @ W and has none: without "
                                    "them the two modules would not give the same output");
    }
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
}

}  // namespace module_checks

void transfer_weights(const SelfAttention_v2& from, SelfAttention_v1& to);

}  // namespace attn
