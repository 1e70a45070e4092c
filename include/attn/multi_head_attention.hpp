// attn/multi_head_attention.hpp — group D: multi-head attention (exercises 16 to 21).
//
// Mirrors section 3.6 of the book "Build a Large Language Model (From Scratch)", the solution of
// its Exercise 3.2, a tutorial on multi-head attention, and Exercise 8 of Understanding Deep
// Learning's self-attention notebook. Each exercise names its cells; the public notebooks:
//   ch03.ipynb, the book's chapter 3 notebook:
//     https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb
//   exercise-solutions.ipynb, the book's exercise solutions:
//     https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/exercise-solutions.ipynb
//   12_1_Self_Attention.ipynb (Understanding Deep Learning, column convention):
//     https://github.com/udlbook/udlbook/blob/main/Notebooks/Chap12/12_1_Self_Attention.ipynb
//
// Several heads look at the same tokens, each with its own projections, and their context
// vectors are put side by side: with num_heads heads of head_dim features each, a token's
// output has num_heads * head_dim features. First as a list of exercise 15's CausalAttention
// modules (the wrapper), then as one module whose projections hold every head at once and are
// split into heads by reshaping (the fused MultiHeadAttention, "one big matmul instead of
// many").
//
// Convention (row convention, as in PyTorch): x is a batch (B, T, d_in); a batch split into
// heads is an attn::Tensor4 (B, num_heads, T, head_dim). Every module is written like its
// nn.Module (attn/module.hpp): parameters under the names of PyTorch's state_dict(), a
// constructor that checks them, forward(x) the exercise. Every check is in attn/checks.hpp.
#pragma once

#include "attn/causal_attention.hpp"
#include "attn/checks.hpp"
#include "attn/errors.hpp"
#include "attn/linear.hpp"
#include "attn/module.hpp"
#include "attn/tensor.hpp"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace attn {

// ---- Exercise 16 -------------------------------------------------------------------------

// ---- Exercise 17 -------------------------------------------------------------------------

// ---- Exercise 18 -------------------------------------------------------------------------

// ---- Exercise 19 -------------------------------------------------------------------------

// ---- Exercise 20 -------------------------------------------------------------------------

// ---- Exercise 21 -------------------------------------------------------------------------

}  // namespace attn
