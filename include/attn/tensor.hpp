// attn/tensor.hpp — the tensor types every exercise uses.
//
// The kit computes in float32, as PyTorch does by default, so your results can be compared
// with the notebooks' printed values. A Vector is a 1-D tensor (PyTorch: shape (n,)), a
// Matrix a 2-D tensor (shape (rows, cols)), a Tensor3 a batch (B, T, d), a Tensor4 a batch
// split into attention heads (B, heads, T, head_dim); all are xtensor containers with a fixed
// rank.
#pragma once

#include <xtensor/xtensor.hpp>

#include <cstddef>
#include <sstream>
#include <string>

namespace attn {

using Vector = xt::xtensor<float, 1>;   // shape (n,)
using Matrix = xt::xtensor<float, 2>;   // shape (rows, cols); row i is xt::row(m, i)
using Tensor3 = xt::xtensor<float, 3>;  // shape (B, T, d): a batch of B sequences of T tokens
using Tensor4 = xt::xtensor<float, 4>;  // shape (B, heads, T, head_dim): one (T, head_dim) per head
using BoolMatrix = xt::xtensor<bool, 2>;  // a mask, as PyTorch's mask.bool(): true = hidden

// "(6, 3)": a shape written the way PyTorch's torch.Size prints it, for error messages.
template <class Shape>
std::string shape_string(const Shape& shape) {
    std::ostringstream out;
    out << '(';
    for (std::size_t i = 0; i < shape.size(); ++i) out << (i ? ", " : "") << shape[i];
    out << (shape.size() == 1 ? ",)" : ")");
    return out.str();
}

}  // namespace attn
