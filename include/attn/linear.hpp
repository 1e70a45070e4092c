// attn/linear.hpp — the parameters of torch.nn.Linear, with PyTorch's names and shapes.
//
// nn.Linear(d_in, d_out, bias) computes y = x @ weight.T + bias for every row x. Its weight is
// stored (d_out, d_in): transposed relative to the (d_in, d_out) matrices W of `x @ W` in the
// book's SelfAttention_v1. Modules that hold Linear layers (SelfAttention_v2, CausalAttention)
// load them from the keys of PyTorch's state_dict(): "W_query.weight", "W_query.bias", ...
#pragma once

#include "attn/tensor.hpp"

namespace attn {

struct Linear {
    Matrix weight;  // (d_out, d_in)
    Vector bias;    // (d_out,), or empty (shape (0,)) for bias=False

    bool has_bias() const { return bias.size() != 0; }
};

}  // namespace attn
