// attn/checks.hpp — argument checks shared by the exercises.
//
// The stubs call these before the part you write, so a caller who passes a wrong shape gets
// an attn::shape_error naming the problem instead of reading memory out of bounds.
#pragma once

#include "attn/errors.hpp"
#include "attn/tensor.hpp"

#include <cstddef>
#include <string>

namespace attn::checks {

// `what` must have at least one element in every dimension ("inputs is empty: shape (0, 3)").
template <class Tensor>
void require_non_empty(const std::string& function, const std::string& what, const Tensor& t) {
    if (t.size() == 0) {
        throw shape_error(function + ": " + what + " is empty: shape " + shape_string(t.shape()));
    }
}

// `what` must have exactly `expected` elements along `axis`.
template <class Tensor>
void require_length(const std::string& function, const std::string& what, const Tensor& t,
                    std::size_t axis, std::size_t expected, const std::string& expected_name) {
    if (t.shape()[axis] != expected) {
        throw shape_error(function + ": " + what + " has shape " + shape_string(t.shape()) +
                          ", but its dimension " + std::to_string(axis) + " must equal " +
                          expected_name + " = " + std::to_string(expected));
    }
}

// A PyTorch-style dim for a rank-2 tensor: 0, 1, -1 or -2. Returns the axis as 0 or 1.
inline std::size_t normalize_dim(const std::string& function, int dim) {
    if (dim < -2 || dim > 1) {
        throw std::out_of_range(function + ": dim " + std::to_string(dim) +
                                " is out of range for a 2-D tensor (expected -2, -1, 0 or 1)");
    }
    return static_cast<std::size_t>(dim < 0 ? dim + 2 : dim);
}

// An index into the rows of a (T, d) matrix.
inline void require_row_index(const std::string& function, const std::string& what,
                              std::size_t index, std::size_t rows) {
    if (index >= rows) {
        throw std::out_of_range(function + ": " + what + " " + std::to_string(index) +
                                " is out of range for " + std::to_string(rows) + " tokens");
    }
}

}  // namespace attn::checks

namespace attn::checks {

// `what` must be ONE column, shape (rows, 1), as a token is in the column convention
// ("query must be one column, shape (d_k, 1), but has shape (4, 2)").
template <class Tensor>
void require_column(const std::string& function, const std::string& what, const Tensor& t,
                    const std::string& rows_name) {
    if (t.dimension() != 2 || t.shape()[1] != 1) {
        throw shape_error(function + ": " + what + " must be one column, shape (" + rows_name +
                          ", 1), but has shape " + shape_string(t.shape()));
    }
}

}  // namespace attn::checks
