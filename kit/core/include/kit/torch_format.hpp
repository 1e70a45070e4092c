// kit/torch_format.hpp — a tensor printed exactly as PyTorch's repr() prints it.
//
// Failure messages show the student's tensor and the golden in the format the notebooks
// print, so a wrong answer can be compared with the book at a glance. Default print options
// (precision 4, threshold 1000, edgeitems 3, linewidth 80), as in PyTorch 1.13.
#pragma once

#include "kit/any_tensor.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace attn::kit {

// "tensor([0.9544, 1.4950, 1.4754])", "tensor([[1., 0.],\n        [1., 1.]])",
// "tensor([ 3, 12])" (int64), "tensor([ True, False])" (bool), ...
// `precision`: the digits after the point, as torch.set_printoptions(precision=3) sets them.
std::string torch_repr(const any_tensor& tensor, int precision = 4);

// A number as the kit's messages show it: `digits` significant digits, and nan, inf and -inf
// as Python prints them (printf writes "-nan" for a nan with its sign bit set).
std::string message_number(double value, int digits = 6);

// An int64 (or bool) value exactly, with thousands separators: "2,360,064", "-1,073,741,824".
// Never %g: two counts that differ in their seventh digit must not print alike.
std::string exact_integer(double value);

// How an integer `got` differs from `expected`: "2,304 fewer than expected, ×0.999",
// "1 more than expected, ×1.5"; the factor is left out where expected is 0 or the signs differ
// ("4,294,967,296 fewer than expected").
std::string integer_difference(double got, double expected);

// "[4, 1]": a flat (row-major) position in a tensor of `shape`, as a student indexes it.
std::string index_text(std::size_t flat, const std::vector<std::size_t>& shape);

}  // namespace attn::kit
