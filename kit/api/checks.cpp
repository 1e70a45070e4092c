// kit/api/checks.cpp — the bodies of include/attn/checks.hpp's checks that are not templates.
//
// Compiled once into attn_api, for the reason kit/api/arguments.cpp gives.
#include "attn/checks.hpp"

#include "attn/errors.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace attn::checks {

std::size_t normalize_dim(const std::string& function, int dim) {
    if (dim < -2 || dim > 1) {
        throw std::out_of_range(function + ": dim " + std::to_string(dim) +
                                " is out of range for a 2-D tensor (expected -2, -1, 0 or 1)");
    }
    return static_cast<std::size_t>(dim < 0 ? dim + 2 : dim);
}

void require_row_index(const std::string& function, const std::string& what, std::size_t index,
                       std::size_t rows) {
    if (index >= rows) {
        throw std::out_of_range(function + ": " + what + " " + std::to_string(index) +
                                " is out of range for " + std::to_string(rows) + " tokens");
    }
}

// ---- modules (exercises 09 onwards) -------------------------------------------------------
void require_positive(const std::string& function, const std::string& what, std::size_t value) {
    if (value == 0) {
        throw shape_error(function + ": " + what + " is 0: it must be at least 1");
    }
}

void require_square(const std::string& function, const std::string& what, const Matrix& m) {
    require_non_empty(function, what, m);
    if (m.shape(0) != m.shape(1)) {
        throw shape_error(function + ": " + what + " has shape " + shape_string(m.shape()) +
                          ", but attention " + what +
                          " are square: (T, T), one row and one "
                          "column per token");
    }
}

void require_same_shape(const std::string& module, const std::string& name, const Matrix& matrix,
                        const Matrix& first) {
    if (matrix.shape() != first.shape()) {
        throw shape_error(module + ": " + name + " has shape " + shape_string(matrix.shape()) +
                          ", but W_query has " + shape_string(first.shape()) +
                          "; the three projections map d_in to the same d_out");
    }
}

void require_layer_like(const std::string& function, const std::string& name, const Linear& layer,
                        const std::string& first_name, const Linear& first, bool same_bias) {
    require_non_empty(function, name + ".weight", layer.weight);
    if (layer.weight.shape() != first.weight.shape()) {
        throw shape_error(function + ": " + name + ".weight has shape " +
                          shape_string(layer.weight.shape()) + ", but " + first_name +
                          ".weight has " + shape_string(first.weight.shape()) +
                          ": all of them are (d_out, d_in)");
    }
    if (same_bias && layer.has_bias() != first.has_bias()) {
        const bool bias = first.has_bias();
        throw shape_error(function + ": " + name + (bias ? " has no bias" : " has a bias") +
                          ", but " + first_name + (bias ? " has one" : " has none") +
                          "; qkv_bias gives all three layers a bias or none");
    }
    if (layer.has_bias()) {
        require_length(function, name + ".bias", layer.bias, 0, layer.weight.shape(0), "d_out");
    }
}

void require_tokens(const std::string& function, const Matrix& x, const std::string& parameter,
                    const Matrix& matrix, bool rows_are_d_in) {
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

void require_batch(const std::string& function, const Tensor3& x, std::size_t d_in,
                   std::size_t context_length) {
    require_non_empty(function, "x", x);
    require_length(function, "x", x, 2, d_in, "d_in of the weights");
    if (x.shape(1) > context_length) {
        throw shape_error(function + ": x has T = " + std::to_string(x.shape(1)) +
                          " tokens, more than the context_length = " +
                          std::to_string(context_length) + " its mask was built for");
    }
}

// ---- multi-head attention (exercises 16 onwards) ------------------------------------------
void require_no_bias(const std::string& function, const std::string& name, const Linear& layer) {
    if (layer.has_bias()) {
        throw shape_error(function + ": " + name + " has a bias, shape " +
                          shape_string(layer.bias.shape()) + ", but " + function +
                          "'s layers have none (nn.Linear(..., bias=False))");
    }
}

void require_square_layer(const std::string& function, const std::string& name, const Linear& layer,
                          std::size_t d_out) {
    require_non_empty(function, name + ".weight", layer.weight);
    if (layer.weight.shape(0) != d_out || layer.weight.shape(1) != d_out) {
        throw shape_error(
            function + ": " + name + ".weight has shape " + shape_string(layer.weight.shape()) +
            ", but it must be (d_out, d_out) = (" + std::to_string(d_out) + ", " +
            std::to_string(d_out) + "): it maps the merged heads' d_out features to d_out");
    }
    if (layer.has_bias()) require_length(function, name + ".bias", layer.bias, 0, d_out, "d_out");
}

void require_batch_without_mask(const std::string& function, const Tensor3& x, std::size_t d_in) {
    require_non_empty(function, "x", x);
    require_length(function, "x", x, 2, d_in, "d_in of the weights");
}

void require_divisible(const std::string& function, const std::string& what, std::size_t total,
                       std::size_t num_heads) {
    require_positive(function, "num_heads", num_heads);
    if (total % num_heads != 0) {
        throw shape_error(function + ": " + what + " = " + std::to_string(total) +
                          " is not divisible by num_heads = " + std::to_string(num_heads) +
                          ": every head gets " + what + " / num_heads features");
    }
}

void require_heads_tensor(const std::string& function, const Tensor4& heads) {
    require_non_empty(function, "heads", heads);
}

void require_attention_heads(const std::string& function, const Tensor4& queries,
                             const Tensor4& keys, const Tensor4& values) {
    require_non_empty(function, "queries", queries);
    for (const auto& [name, heads] :
         {std::pair<const char*, const Tensor4*>{"keys", &keys}, {"values", &values}}) {
        if (heads->shape() != queries.shape()) {
            throw shape_error(function + ": " + name + " has shape " +
                              shape_string(heads->shape()) + ", but queries has " +
                              shape_string(queries.shape()));
        }
    }
}

void require_mask_for(const std::string& function, const Matrix& mask, std::size_t T) {
    require_square(function, "mask", mask);
    require_positive(function, "T", T);
    if (T > mask.shape(0)) {
        throw shape_error(function + ": T = " + std::to_string(T) +
                          " tokens, more than the context_length = " +
                          std::to_string(mask.shape(0)) + " the mask was built for");
    }
}

}  // namespace attn::checks
