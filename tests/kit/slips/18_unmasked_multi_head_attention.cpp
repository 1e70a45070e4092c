// tests/kit/slips/18_unmasked_multi_head_attention.cpp — exercise 18's solution with the slips
// students make, each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py runs every one
// and reads the status line). Without ATTN_SLIP it is the solution and passes every test.
// (The module has no bias anywhere: its constructor refuses one, so no bias can be dropped.)
//
// slip: fc_out_dropped -> left out fc_out
// slip: fc_out_untransposed -> fc_out.weight without transposing
// slip: merged_reversed -> reverse order
// slip: merged_from_column_h -> from column h
// slip: merged_interleaved -> merged the heads interleaved
// slip: first_head_columns -> first head's columns
// slip: scale_after_softmax -> after the softmax
// slip: scaled_by_d_out -> sqrt(d_out)
// slip: scale_left_out -> left out the / sqrt(head_dim)
// slip: divided_by_head_dim -> divided by head_dim instead of sqrt(head_dim)
// slip: scaled_by_num_heads -> sqrt(num_heads)
// slip: multiplied_by_scale -> multiplied the scores by sqrt(head_dim)
// slip: causal_mask -> causal mask
// slip: mask_after_softmax -> zeroed the future's attention weights
// slip: softmax_over_columns -> softmax over the columns
// slip: heads_not_split -> heads never split
// slip: keys_times_queries -> keys and queries swapped
// slip: keys_copied_line -> keys with W_query
// slip: values_copied_line -> values with W_key
// slip: batch_item_0 -> first one
// slip: heads_loop_short -> last head left out
// slip: values_from_queries_line -> values with W_query
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/simple_attention.hpp"
#include "slip.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xview.hpp>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace attn {

Tensor3 UnmaskedMultiHeadAttention::forward(const Tensor3& x) const {
    arguments::unmasked_multi_head_attention_forward(x, d_in());  // bad input -> a clear error

    const std::size_t B = x.shape(0), T = x.shape(1), hd = head_dim();
    float scale = std::sqrt(static_cast<float>(hd));
    if (slip("scaled_by_d_out")) scale = std::sqrt(static_cast<float>(d_out()));
    if (slip("scale_left_out")) scale = 1.0f;
    if (slip("divided_by_head_dim")) scale = static_cast<float>(hd);
    if (slip("scaled_by_num_heads")) scale = std::sqrt(static_cast<float>(num_heads));
    Tensor3 out = xt::zeros<float>({B, T, d_out()});
    for (std::size_t b = 0; b < B; ++b) {
        const std::size_t item = slip("batch_item_0") ? 0 : b;
        const Matrix x_b = xt::view(x, item, xt::all(), xt::all());                  // (T, d_in)
        const Matrix queries = xt::linalg::dot(x_b, xt::transpose(W_query.weight));  // (T, d_out)
        const Matrix keys = xt::linalg::dot(
            x_b, xt::transpose(slip("keys_copied_line") ? W_query.weight : W_key.weight));
        const Matrix values = xt::linalg::dot(
            x_b, xt::transpose(slip("values_copied_line")         ? W_key.weight
                               : slip("values_from_queries_line") ? W_query.weight
                                                                  : W_value.weight));

        Matrix context = xt::zeros<float>({T, d_out()});
        if (slip("heads_not_split")) {  // one attention over all d_out columns
            const Matrix scores = xt::linalg::dot(queries, xt::transpose(keys)) / scale;
            context = xt::linalg::dot(softmax(scores, -1), values);
        }
        const std::size_t heads = slip("heads_loop_short") ? num_heads - 1 : num_heads;
        for (std::size_t h = 0; h < heads && !slip("heads_not_split"); ++h) {
            auto columns = xt::range(h * hd, (h + 1) * hd);
            if (slip("first_head_columns")) columns = xt::range(std::size_t{0}, hd);
            const Matrix q_h = xt::view(queries, xt::all(), columns);  // (T, hd)
            const Matrix k_h = xt::view(keys, xt::all(), columns);
            const Matrix v_h = xt::view(values, xt::all(), columns);
            Matrix scores = xt::linalg::dot(q_h, xt::transpose(k_h));  // (T, T)
            if (slip("keys_times_queries")) scores = xt::linalg::dot(k_h, xt::transpose(q_h));
            if (slip("multiplied_by_scale")) {
                scores = scores * scale;
            } else if (!slip("scale_after_softmax")) {
                scores = scores / scale;
            }
            if (slip("causal_mask")) {
                for (std::size_t i = 0; i < T; ++i) {
                    for (std::size_t j = i + 1; j < T; ++j) {
                        scores(i, j) = -std::numeric_limits<float>::infinity();
                    }
                }
            }
            Matrix weights = softmax(scores, slip("softmax_over_columns") ? 0 : -1);
            if (slip("mask_after_softmax")) {
                for (std::size_t i = 0; i < T; ++i) {
                    for (std::size_t j = i + 1; j < T; ++j) weights(i, j) = 0.0f;
                }
            }
            if (slip("scale_after_softmax")) weights = weights / scale;
            const Matrix head = xt::linalg::dot(weights, v_h);  // (T, hd)
            if (slip("merged_reversed")) {
                const std::size_t r = num_heads - 1 - h;
                xt::view(context, xt::all(), xt::range(r * hd, (r + 1) * hd)) = head;
            } else if (slip("merged_from_column_h")) {
                xt::view(context, xt::all(), xt::range(h, h + hd)) = head;
            } else if (slip("merged_interleaved")) {
                for (std::size_t t = 0; t < T; ++t) {
                    for (std::size_t i = 0; i < hd; ++i) context(t, i * num_heads + h) = head(t, i);
                }
            } else if (slip("first_head_columns")) {
                xt::view(context, xt::all(), xt::range(h * hd, (h + 1) * hd)) = head;
            } else {
                xt::view(context, xt::all(), columns) = head;
            }
        }
        if (slip("fc_out_dropped")) {
            xt::view(out, b, xt::all(), xt::all()) = context;
        } else if (slip("fc_out_untransposed")) {
            xt::view(out, b, xt::all(), xt::all()) = xt::linalg::dot(context, fc_out.weight);
        } else {
            xt::view(out, b, xt::all(), xt::all()) =
                xt::linalg::dot(context, xt::transpose(fc_out.weight));  // (T, d_out)
        }
    }
    return out;
}

}  // namespace attn
