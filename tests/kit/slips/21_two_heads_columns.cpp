// tests/kit/slips/21_two_heads_columns.cpp — exercise 21's solution with the slips students
// make, each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py runs every one and reads
// the status line). Without ATTN_SLIP it is the solution and passes every test. Most slips
// are in the exercise-08 call; a few are in a head written out by hand (head_by_hand below,
// which is exercise 08 when no slip is set).
//
// slip: called_q_k_v -> scaled_dot_product_self_attention(X, W_q, W_k, W_v, b_q, b_k, b_v)
// slip: weights_q_k_v -> scaled_dot_product_self_attention(X, W_q, W_k, W_v, b_v, b_q, b_k)
// slip: biases_q_k_v -> scaled_dot_product_self_attention(X, W_v, W_q, W_k, b_q, b_k, b_v)
// slip: W_v_W_q_swapped -> scaled_dot_product_self_attention(X, W_q, W_v, W_k, b_q, b_v, b_k)
// slip: W_q_W_k_swapped -> scaled_dot_product_self_attention(X, W_v, W_k, W_q, b_v, b_k, b_q)
// slip: heads_reversed -> reverse order
// slip: rows_from_h -> instead of row h * d_v
// slip: first_head_only -> first head for every head
// slip: heads_loop_short -> left out the last head
// slip: W_c_dropped -> left out W_c
// slip: W_c_transposed -> W_c transposed
// slip: W_c_before_stacking -> W_c applied before stacking
// slip: W_c_first_block -> first d_v columns
// slip: biases_dropped -> left out the biases
// slip: b_q_dropped -> left out b_q
// slip: b_v_dropped -> left out b_v
// slip: scale_after_softmax -> after softmax_cols
// slip: softmax_over_rows -> softmax over the rows
// slip: scaled_by_sqrt_D -> sqrt(D)
// slip: scale_left_out -> left out the division by sqrt(d_k)
// slip: multiplied_by_scale -> multiplied the scores by sqrt(d_k)
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/simple_attention.hpp"
#include "attn/trainable_attention.hpp"
#include "slip.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xview.hpp>

#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <vector>

namespace attn {

namespace {

// One head written out, as the notebook's cell writes head 1: exercise 08 without a slip.
Matrix head_by_hand(const Matrix& X, const ColumnHead& head) {
    Matrix Q = xt::linalg::dot(head.W_q, X), K = xt::linalg::dot(head.W_k, X),
           V = xt::linalg::dot(head.W_v, X);
    if (!slip("biases_dropped")) {
        if (!slip("b_q_dropped")) Q = Q + head.b_q;
        K = K + head.b_k;
        if (!slip("b_v_dropped")) V = V + head.b_v;
    }
    float d_k = static_cast<float>(K.shape(0));
    if (slip("scaled_by_sqrt_D")) d_k = static_cast<float>(X.shape(0));
    Matrix scores = xt::linalg::dot(xt::transpose(K), Q);  // (N, N)
    if (slip("multiplied_by_scale")) {
        scores = scores * std::sqrt(d_k);
    } else if (!slip("scale_after_softmax") && !slip("scale_left_out")) {
        scores = scores / std::sqrt(d_k);
    }
    Matrix attention = softmax(scores, slip("softmax_over_rows") ? 1 : 0);
    if (slip("scale_after_softmax")) attention = attention / std::sqrt(d_k);
    return xt::linalg::dot(V, attention);  // (d_v, N)
}

bool by_hand() {
    return slip("biases_dropped") || slip("b_q_dropped") || slip("b_v_dropped") ||
           slip("scaled_by_sqrt_D") || slip("scale_after_softmax") || slip("softmax_over_rows") ||
           slip("scale_left_out") || slip("multiplied_by_scale");
}

Matrix one_head(const Matrix& X, const ColumnHead& head) {
    if (by_hand()) return head_by_hand(X, head);
    if (slip("called_q_k_v")) {
        return scaled_dot_product_self_attention(X, head.W_q, head.W_k, head.W_v, head.b_q,
                                                 head.b_k, head.b_v);
    }
    if (slip("weights_q_k_v")) {
        return scaled_dot_product_self_attention(X, head.W_q, head.W_k, head.W_v, head.b_v,
                                                 head.b_q, head.b_k);
    }
    if (slip("biases_q_k_v")) {
        return scaled_dot_product_self_attention(X, head.W_v, head.W_q, head.W_k, head.b_q,
                                                 head.b_k, head.b_v);
    }
    if (slip("W_v_W_q_swapped")) {
        return scaled_dot_product_self_attention(X, head.W_q, head.W_v, head.W_k, head.b_q,
                                                 head.b_v, head.b_k);
    }
    if (slip("W_q_W_k_swapped")) {
        return scaled_dot_product_self_attention(X, head.W_v, head.W_k, head.W_q, head.b_v,
                                                 head.b_k, head.b_q);
    }
    return scaled_dot_product_self_attention(X, head.W_v, head.W_q, head.W_k, head.b_v, head.b_q,
                                             head.b_k);  // (d_v, N)
}

}  // namespace

Matrix multi_head_attention_columns(const Matrix& X, const ColumnHeads& heads, const Matrix& W_c) {
    arguments::multi_head_attention_columns(X, heads, W_c);  // bad input -> a clear error

    const std::size_t H = heads.size(), d_v = heads[0].W_v.shape(0), N = X.shape(1);
    if (slip("W_c_before_stacking")) {  // each head times its block of W_c, then stacked
        const std::size_t D_out = W_c.shape(0);
        Matrix out = xt::zeros<float>({H * D_out, N});
        for (std::size_t h = 0; h < H; ++h) {
            const Matrix W_c_h = xt::view(W_c, xt::all(), xt::range(h * d_v, (h + 1) * d_v));
            xt::view(out, xt::range(h * D_out, (h + 1) * D_out), xt::all()) =
                xt::linalg::dot(W_c_h, one_head(X, heads[h]));
        }
        return out;
    }
    if (slip("W_c_first_block")) {  // the sum of the blocks' products, every head the first block
        Matrix out = xt::zeros<float>({W_c.shape(0), N});
        for (std::size_t h = 0; h < H; ++h) {
            const Matrix W_c_h = xt::view(W_c, xt::all(), xt::range(std::size_t{0}, d_v));
            out = out + xt::linalg::dot(W_c_h, one_head(X, heads[h]));
        }
        return out;
    }

    Matrix stacked = xt::zeros<float>({H * d_v, N});  // torch.cat(..., dim=0)
    for (std::size_t h = 0; h + (slip("heads_loop_short") ? 1 : 0) < H; ++h) {
        const ColumnHead& head = slip("first_head_only") ? heads[0] : heads[h];
        std::size_t row = h * d_v;
        if (slip("heads_reversed")) row = (H - 1 - h) * d_v;
        if (slip("rows_from_h")) row = h;
        xt::view(stacked, xt::range(row, row + d_v), xt::all()) = one_head(X, head);
    }
    if (slip("W_c_dropped")) return stacked;
    if (slip("W_c_transposed")) return xt::linalg::dot(xt::transpose(W_c), stacked);
    return xt::linalg::dot(W_c, stacked);  // (D_out, N)
}

}  // namespace attn
