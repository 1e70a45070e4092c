// tests/kit/slips/16_multi_head_wrapper.cpp — exercise 16's solution with the slips students
// make, each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py runs every one and reads
// the status line). Without ATTN_SLIP it is the solution and passes every test.
// The hand_* slips write each head out by hand instead of calling heads[h].forward(x), and get
// one step of it wrong. (The wrapper has no out_proj: that slip belongs to exercise 19.)
//
// slip: heads_reversed -> reverse order
// slip: heads_interleaved -> interleaved
// slip: merged_by_head -> merged by head
// slip: last_head_repeated -> last head
// slip: hand_no_mask -> without the causal mask
// slip: hand_bias_dropped -> without the biases
// slip: hand_mask_after_softmax -> masked after softmax
// slip: hand_scale_after_softmax -> scaled after softmax
// slip: hand_scaled_by_d_out -> the wrapper's num_heads * d_out
#include "attn/arguments.hpp"
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/simple_attention.hpp"
#include "slip.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xview.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace attn {
namespace {

// x[b] @ layer.weight.T + layer.bias, as a student writes a head's projection.
Matrix project(const Linear& layer, const Matrix& xb) {
    Matrix out = xt::linalg::dot(xb, xt::transpose(layer.weight));
    if (layer.has_bias() && !slip("hand_bias_dropped")) out += layer.bias;
    return out;
}

// One CausalAttention head written out by hand; `d_out_of_wrapper` is the wrapper's d_out().
Tensor3 head_by_hand(const CausalAttention& head, const Tensor3& x, std::size_t d_out_of_wrapper) {
    const std::size_t B = x.shape(0), T = x.shape(1), d_head = head.d_out();
    Tensor3 context = xt::zeros<float>({B, T, d_head});
    for (std::size_t b = 0; b < B; ++b) {
        const Matrix xb = xt::view(x, b, xt::all(), xt::all());
        const Matrix q = project(head.W_query, xb);
        const Matrix k = project(head.W_key, xb);
        const Matrix v = project(head.W_value, xb);
        Matrix scores = xt::linalg::dot(q, xt::transpose(k));
        if (!slip("hand_no_mask") && !slip("hand_mask_after_softmax")) {
            for (std::size_t i = 0; i < T; ++i) {
                for (std::size_t j = i + 1; j < T; ++j) {
                    scores(i, j) = -std::numeric_limits<float>::infinity();
                }
            }
        }
        float scale = std::sqrt(static_cast<float>(d_head));
        if (slip("hand_scaled_by_d_out")) scale = std::sqrt(static_cast<float>(d_out_of_wrapper));
        Matrix weights;
        if (slip("hand_scale_after_softmax")) {
            weights = softmax(scores, -1);
            weights /= scale;
        } else {
            weights = softmax(Matrix(scores / scale), -1);
        }
        if (slip("hand_mask_after_softmax")) {
            for (std::size_t i = 0; i < T; ++i) {
                for (std::size_t j = i + 1; j < T; ++j) weights(i, j) = 0.0f;
            }
        }
        xt::view(context, b, xt::all(), xt::all()) = xt::linalg::dot(weights, v);
    }
    return context;
}

bool writes_heads_by_hand() {
    return slip("hand_no_mask") || slip("hand_bias_dropped") || slip("hand_mask_after_softmax") ||
           slip("hand_scale_after_softmax") || slip("hand_scaled_by_d_out");
}

}  // namespace

Tensor3 MultiHeadAttentionWrapper::forward(const Tensor3& x) const {
    // bad input -> a clear error
    arguments::multi_head_attention_wrapper_forward(x, d_in(), context_length());

    const std::size_t B = x.shape(0), T = x.shape(1), d_head = heads[0].d_out();
    const std::size_t H = heads.size();
    Tensor3 context = xt::zeros<float>({B, T, d_out()});
    for (std::size_t h = 0; h < H; ++h) {
        const Tensor3 head =
            writes_heads_by_hand() ? head_by_hand(heads[h], x, d_out()) : heads[h].forward(x);
        if (slip("heads_interleaved")) {
            for (std::size_t b = 0; b < B; ++b) {
                for (std::size_t t = 0; t < T; ++t) {
                    for (std::size_t k = 0; k < d_head; ++k)
                        context(b, t, k * H + h) = head(b, t, k);
                }
            }
            continue;
        }
        if (slip("merged_by_head")) {  // one head after the other, in memory order
            std::copy(head.begin(), head.end(), context.begin() + h * head.size());
            continue;
        }
        std::size_t block = h;
        if (slip("heads_reversed")) block = H - 1 - h;
        if (slip("last_head_repeated")) {
            for (std::size_t g = 0; g < H; ++g) {
                xt::view(context, xt::all(), xt::all(), xt::range(g * d_head, (g + 1) * d_head)) =
                    head;
            }
            continue;
        }
        // torch.cat(dim=-1): head h's features are the block [h * d_head, (h + 1) * d_head).
        xt::view(context, xt::all(), xt::all(), xt::range(block * d_head, (block + 1) * d_head)) =
            head;
    }
    return context;
}

}  // namespace attn
