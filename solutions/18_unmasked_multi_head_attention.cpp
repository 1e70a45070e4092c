// solutions/18_unmasked_multi_head_attention.cpp — reference solution of Exercise 18:
// multi-head attention with one projection split into heads, no mask, and fc_out.
//
// Source: the course's solution of Exercise 3.2 (see
// exercises/18_unmasked_multi_head_attention.cpp). Declared in
// include/attn/multi_head_attention.hpp. Uses exercise 03 (softmax); the kit links its
// reference solution.
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/simple_attention.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xview.hpp>

#include <cmath>

namespace attn {

Tensor3 UnmaskedMultiHeadAttention::forward(const Tensor3& x) const {
    arguments::unmasked_multi_head_attention_forward(x, d_in());  // bad input -> a clear error

    const std::size_t B = x.shape(0), T = x.shape(1), hd = head_dim();
    const float scale = std::sqrt(static_cast<float>(hd));
    Tensor3 out = xt::zeros<float>({B, T, d_out()});
    for (std::size_t b = 0; b < B; ++b) {
        const Matrix x_b = xt::view(x, b, xt::all(), xt::all());                     // (T, d_in)
        const Matrix queries = xt::linalg::dot(x_b, xt::transpose(W_query.weight));  // (T, d_out)
        const Matrix keys = xt::linalg::dot(x_b, xt::transpose(W_key.weight));
        const Matrix values = xt::linalg::dot(x_b, xt::transpose(W_value.weight));

        // Head h is columns h * hd .. (h + 1) * hd - 1: view(B, T, num_heads, hd).transpose(1, 2)
        // for one item; writing its context into the same columns is the merge.
        Matrix context = xt::zeros<float>({T, d_out()});
        for (std::size_t h = 0; h < num_heads; ++h) {
            auto columns = xt::range(h * hd, (h + 1) * hd);  // not const: xtensor 0.24 refuses
            const Matrix q_h = xt::view(queries, xt::all(), columns);  // (T, hd)
            const Matrix k_h = xt::view(keys, xt::all(), columns);
            const Matrix v_h = xt::view(values, xt::all(), columns);
            const Matrix scores = xt::linalg::dot(q_h, xt::transpose(k_h)) / scale;  // (T, T)
            xt::view(context, xt::all(), columns) = xt::linalg::dot(softmax(scores, -1), v_h);
        }
        xt::view(out, b, xt::all(), xt::all()) =
            xt::linalg::dot(context, xt::transpose(fc_out.weight));  // (T, d_out)
    }
    return out;
}

}  // namespace attn
