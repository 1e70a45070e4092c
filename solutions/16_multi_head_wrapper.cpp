// solutions/16_multi_head_wrapper.cpp — reference solution of Exercise 16:
// MultiHeadAttentionWrapper.
//
// Source: ch03.ipynb In [35] (see exercises/16_multi_head_wrapper.cpp). Declared in
// include/attn/multi_head_attention.hpp. Each head is exercise 15's CausalAttention; the kit
// links its reference solution.
#include "attn/arguments.hpp"
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"
#include "attn/multi_head_attention.hpp"

#include <xtensor/xbuilder.hpp>
#include <xtensor/xview.hpp>

namespace attn {

Tensor3 MultiHeadAttentionWrapper::forward(const Tensor3& x) const {
    // bad input -> a clear error
    arguments::multi_head_attention_wrapper_forward(x, d_in(), context_length());

    const std::size_t B = x.shape(0), T = x.shape(1), d_head = heads[0].d_out();
    Tensor3 context = xt::zeros<float>({B, T, d_out()});
    for (std::size_t h = 0; h < heads.size(); ++h) {
        // torch.cat(dim=-1): head h's features are the block [h * d_head, (h + 1) * d_head).
        xt::view(context, xt::all(), xt::all(), xt::range(h * d_head, (h + 1) * d_head)) =
            heads[h].forward(x);
    }
    return context;
}

}  // namespace attn
