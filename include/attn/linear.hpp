// attn/linear.hpp — the parameters of torch.nn.Linear, with PyTorch's names and shapes.
//
// nn.Linear(d_in, d_out, bias) computes y = x @ weight.T + bias for every row x. Its weight is
// stored (d_out, d_in): transposed relative to the (d_in, d_out) matrices W of `x @ W` in the
// book's SelfAttention_v1. In a module's state_dict() a Linear named W_query is the keys
// "W_query.weight" and, with a bias, "W_query.bias". Its functions' bodies are in
// kit/api/linear.cpp.
#pragma once

#include "attn/module.hpp"
#include "attn/tensor.hpp"

#include <cstddef>
#include <string>

namespace attn {

struct Linear {
    Matrix weight;  // (d_out, d_in)
    Vector bias;    // (d_out,), or empty (shape (0,)) for bias=False

    bool has_bias() const { return bias.size() != 0; }
    std::size_t d_in() const { return weight.shape(1); }
    std::size_t d_out() const { return weight.shape(0); }

    // nn.Linear(d_in, d_out, bias) named `name` in its module: PyTorch draws the weight, then
    // the bias, uniformly from [-1/sqrt(d_in), 1/sqrt(d_in)); `source` decides the values.
    static Linear make(ParameterSource& source, const std::string& name, std::size_t d_in,
                       std::size_t d_out, bool bias);

    // The layer `name` of a state_dict: "<name>.weight", and "<name>.bias" if it has one.
    static Linear load(const StateDict& state, const std::string& name);

    // Adds "<name>.weight" (and "<name>.bias" if there is one) to `state`.
    void save(StateDict& state, const std::string& name) const;
};

}  // namespace attn
