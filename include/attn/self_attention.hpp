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
// Each module is written like its nn.Module (attn/module.hpp): its parameters are public
// members under the names of PyTorch's state_dict(),
//   SelfAttention_v1: W_query, W_key, W_value                          each (d_in, d_out)
//   SelfAttention_v2: W_query.weight, W_key.weight, W_value.weight     each (d_out, d_in)
//                     and, with qkv_bias=True, W_query.bias, ...       each (d_out,)
// one constructor takes them (the kit's tests load them from a case's files, named exactly
// like those keys: W_query.weight.npy, ...), another takes __init__'s sizes and an
// attn::ParameterSource; forward(x) is the exercise. The constructors check the parameters'
// shapes and throw attn::shape_error naming the problem; forward() checks x (the stubs'
// first line does: one call into attn/arguments.hpp). Every check is built from
// attn/checks.hpp.
#pragma once

#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/linear.hpp"
#include "attn/module.hpp"
#include "attn/tensor.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace attn {

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
        arguments::self_attention_v1(W_query, W_key, W_value);
    }

    // SelfAttention_v1(d_in, d_out): each matrix torch.rand(d_in, d_out), uniform in [0, 1).
    SelfAttention_v1(std::size_t d_in, std::size_t d_out, ParameterSource& source,
                     const std::string& prefix = "")
        : SelfAttention_v1{source.parameter(prefix + "W_query", {d_in, d_out}, Init::rand()),
                           source.parameter(prefix + "W_key", {d_in, d_out}, Init::rand()),
                           source.parameter(prefix + "W_value", {d_in, d_out}, Init::rand())} {}

    // The module of a state_dict: its W_query, W_key and W_value.
    static SelfAttention_v1 load(const StateDict& state) {
        return {state.at<2>("W_query"), state.at<2>("W_key"), state.at<2>("W_value")};
    }

    std::size_t d_in() const { return W_query.shape(0); }
    std::size_t d_out() const { return W_query.shape(1); }

    StateDict state_dict() const {
        StateDict state;
        state.set("W_query", W_query);
        state.set("W_key", W_key);
        state.set("W_value", W_value);
        return state;
    }

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
        arguments::self_attention_v2(W_query, W_key, W_value);
    }

    // SelfAttention_v2(d_in, d_out, qkv_bias): three nn.Linear(d_in, d_out, bias=qkv_bias).
    SelfAttention_v2(std::size_t d_in, std::size_t d_out, bool qkv_bias, ParameterSource& source,
                     const std::string& prefix = "")
        : SelfAttention_v2{Linear::make(source, prefix + "W_query", d_in, d_out, qkv_bias),
                           Linear::make(source, prefix + "W_key", d_in, d_out, qkv_bias),
                           Linear::make(source, prefix + "W_value", d_in, d_out, qkv_bias)} {}

    // The module of a state_dict: W_query.weight, ..., and the biases if it has them.
    static SelfAttention_v2 load(const StateDict& state) {
        return {Linear::load(state, "W_query"), Linear::load(state, "W_key"),
                Linear::load(state, "W_value")};
    }

    std::size_t d_in() const { return W_query.d_in(); }
    std::size_t d_out() const { return W_query.d_out(); }
    bool qkv_bias() const { return W_query.has_bias(); }

    StateDict state_dict() const {
        StateDict state;
        W_query.save(state, "W_query");
        W_key.save(state, "W_key");
        W_value.save(state, "W_value");
        return state;
    }

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
// The argument checks are arguments::transfer_weights (attn/arguments.hpp).
void transfer_weights(const SelfAttention_v2& from, SelfAttention_v1& to);

}  // namespace attn
