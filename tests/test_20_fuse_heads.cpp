// tests/test_20_fuse_heads.cpp — Exercise 20: a wrapper's heads fused into one
// MultiHeadAttention (ch03.ipynb In [35] and In [37]). Compiled once; linked against exercises/
// and solutions/20_fuse_heads.cpp, and the reference solutions of the earlier exercises (the
// wrapper's forward is exercise 16's, the fused module's exercise 19's). The cases are in
// reference_data/20_fuse_heads/: a wrapper's parameters under their state_dict() names
// (heads.0.W_query.weight.npy, ...); the outputs are the fused module's parameters under
// theirs, and its forward, which equals the wrapper's.
#include "attn/errors.hpp"
#include "attn/multi_head_attention.hpp"
#include "kit/testing.hpp"

#include <xtensor/xbuilder.hpp>
#include <xtensor/xview.hpp>

#include <cstddef>
#include <string>
#include <vector>

using attn::kit::case_context;
using attn::kit::case_input;
using attn::kit::case_state_dict;

namespace {

attn::MultiHeadAttentionWrapper wrapper_of(case_context& the_case) {
    return attn::MultiHeadAttentionWrapper::load(
        the_case.state_dict(), static_cast<std::size_t>(the_case.integer("num_heads")),
        static_cast<std::size_t>(the_case.integer("context_length")));
}

}  // namespace

ATTN_CASE(fuse_heads) {
    const auto x = the_case.input<3>("x");  // (B, T, d_in)
    const auto wrapper = wrapper_of(the_case);
    const attn::MultiHeadAttention fused = ATTN_CALL(attn::fuse_heads(wrapper));
    ATTN_RESULT("W_query.weight", fused.W_query.weight);  // (num_heads * head_dim, d_in)
    ATTN_RESULT("W_key.weight", fused.W_key.weight);
    ATTN_RESULT("W_value.weight", fused.W_value.weight);
    ATTN_RESULT("out_proj.weight", fused.out_proj.weight);  // (d_out, d_out)
    ATTN_RESULT("out_proj.bias", fused.out_proj.bias);
    ATTN_RESULT("context", fused.forward(x));  // the wrapper's output
}

ATTN_CASE(fuse_heads_bias) {  // qkv_bias=True: the heads' biases stacked too
    const auto x = the_case.input<3>("x");
    const auto wrapper = wrapper_of(the_case);
    const attn::MultiHeadAttention fused = ATTN_CALL(attn::fuse_heads(wrapper));
    ATTN_RESULT("W_query.weight", fused.W_query.weight);
    ATTN_RESULT("W_query.bias", fused.W_query.bias);  // (num_heads * head_dim,)
    ATTN_RESULT("W_key.weight", fused.W_key.weight);
    ATTN_RESULT("W_key.bias", fused.W_key.bias);
    ATTN_RESULT("W_value.weight", fused.W_value.weight);
    ATTN_RESULT("W_value.bias", fused.W_value.bias);
    ATTN_RESULT("out_proj.weight", fused.out_proj.weight);
    ATTN_RESULT("out_proj.bias", fused.out_proj.bias);
    ATTN_RESULT("context", fused.forward(x));
}

namespace {

const std::string notebook = "20_fuse_heads/notebook";

attn::MultiHeadAttentionWrapper notebook_wrapper(std::size_t context_length) {
    return attn::MultiHeadAttentionWrapper::load(
        case_state_dict(notebook), attn::kit::case_integer(notebook, "num_heads"), context_length);
}

}  // namespace

// The fused module keeps the wrapper's context_length: it refuses the tokens the wrapper
// refuses.
TEST(FuseHeadsTest, TheFusedModuleKeepsTheWrappersContextLength) {
    const auto x = case_input<3>(notebook, "x");
    const std::size_t T = x.shape(1);
    const auto wrapper = notebook_wrapper(T);
    const attn::Tensor3 longer = xt::concatenate(xt::xtuple(x, x), 1);  // 2 T tokens
    ATTN_EXPECT_REJECTS(
        attn::fuse_heads(wrapper).forward(x), attn::fuse_heads(wrapper).forward(longer),
        "x of " + std::to_string(longer.shape(1)) + " tokens for a wrapper of context_length " +
            std::to_string(T),
        attn::shape_error, "more than the context_length = " + std::to_string(T),
        R"line(return MultiHeadAttention(..., wrapper.num_heads(), wrapper.context_length());)line");
}
