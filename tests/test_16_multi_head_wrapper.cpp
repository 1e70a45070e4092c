// tests/test_16_multi_head_wrapper.cpp — Exercise 16: MultiHeadAttentionWrapper (ch03.ipynb
// In [35]). Compiled once; linked against exercises/ and solutions/16_multi_head_wrapper.cpp,
// and the reference solutions of the earlier exercises (each head is exercise 15's). The cases
// are in reference_data/16_multi_head_wrapper/: the heads' parameters under their state_dict()
// names (heads.0.W_query.weight.npy, ...), or the seed attn::HashedUniform builds them from.
#include "attn/errors.hpp"
#include "attn/module.hpp"
#include "attn/multi_head_attention.hpp"
#include "kit/testing.hpp"

#include <xtensor/xbuilder.hpp>

#include <cstddef>
#include <string>
#include <vector>

using attn::kit::case_input;
using attn::kit::case_integer;
using attn::kit::case_state_dict;
using attn::kit::kit_line;
using attn::kit::stub_line;

// The heads of a state_dict: any number, with or without biases.
ATTN_CASE(wrapper) {
    const auto x = the_case.input<3>("x");  // (B, T, d_in)
    const auto mha = attn::MultiHeadAttentionWrapper::load(
        the_case.state_dict(), the_case.size("num_heads"), the_case.size("context_length"));
    ATTN_RESULT("context", mha.forward(x));
}

// torch.manual_seed(s); MultiHeadAttentionWrapper(d_in, d_out, ...): the module built from
// its sizes, its parameters drawn by attn::HashedUniform(init_seed).
ATTN_CASE(wrapper_hashed) {
    const auto x = the_case.input<3>("x");
    attn::HashedUniform init(static_cast<std::uint64_t>(the_case.integer("init_seed")));
    const attn::MultiHeadAttentionWrapper mha(
        x.shape(2), the_case.size("d_out"), the_case.size("context_length"),
        the_case.size("num_heads"), the_case.integer("qkv_bias") != 0, init);
    ATTN_RESULT("context", mha.forward(x));
}

namespace {

const std::string notebook = "16_multi_head_wrapper/notebook";

// The notebook case's wrapper, its heads' masks built for `context_length`.
attn::MultiHeadAttentionWrapper notebook_module(std::size_t context_length) {
    return attn::MultiHeadAttentionWrapper::load(
        case_state_dict(notebook), case_integer(notebook, "num_heads"), context_length);
}

std::string str(std::size_t n) { return std::to_string(n); }

}  // namespace

TEST(MultiHeadAttentionWrapperTest, ForwardRejectsMoreTokensThanContextLength) {
    const auto x = case_input<3>(notebook, "x");  // T = 6
    const std::size_t T = x.shape(1);
    ATTN_EXPECT_REJECTS(
        notebook_module(T).forward(x), notebook_module(T - 1).forward(x),
        "x of T = " + std::to_string(T) +
            " tokens, heads whose mask is for context_length = " + std::to_string(T - 1),
        attn::shape_error,
        "x has T = " + str(T) + " tokens, more than the context_length = " + str(T - 1),
        stub_line("arguments::multi_head_attention_wrapper_forward("));
}

TEST(MultiHeadAttentionWrapperTest, ForwardRejectsInputOfAnotherDIn) {
    const auto x = case_input<3>(notebook, "x");
    const std::size_t T = x.shape(1);
    const attn::Tensor3 wider = xt::zeros<float>({x.shape(0), T, x.shape(2) + 1});
    ATTN_EXPECT_REJECTS(notebook_module(T).forward(x), notebook_module(T).forward(wider),
                        "x of d_in + 1 = " + std::to_string(wider.shape(2)) + " features",
                        attn::shape_error, "must equal d_in of the weights = " + str(x.shape(2)),
                        stub_line("arguments::multi_head_attention_wrapper_forward("));
}

// The constructor's checks are the kit's (the header's); the module's forward must work
// before they count.
TEST(MultiHeadAttentionWrapperTest, ConstructorRejectsHeadsOfDifferentSizes) {
    const auto x = case_input<3>(notebook, "x");
    const auto mha = notebook_module(x.shape(1));
    std::vector<attn::CausalAttention> heads = mha.heads;
    const std::size_t d_in = x.shape(2), d_out = mha.heads[0].d_out(), T = x.shape(1);
    const attn::Matrix wider = xt::ones<float>({d_out + 1, d_in});
    heads[1] = attn::CausalAttention({wider, {}}, {wider, {}}, {wider, {}}, T);
    ATTN_EXPECT_REJECTS(
        mha.forward(x), attn::MultiHeadAttentionWrapper(heads),
        "head 1 of d_out = " + str(d_out + 1) + ", head 0 of d_out = " + str(d_out),
        attn::shape_error,
        "head 1 has d_in = " + str(d_in) + ", d_out = " + str(d_out + 1) + ", context_length = " +
            str(T) + ", but head 0 has " + str(d_in) + ", " + str(d_out) + ", " + str(T),
        kit_line("include/attn/arguments.hpp",
                 R"line(checks::require_heads_alike("MultiHeadAttentionWrapper", heads);)line"));
}

TEST(MultiHeadAttentionWrapperTest, ConstructorRejectsNoHeads) {
    const auto x = case_input<3>(notebook, "x");
    const auto mha = notebook_module(x.shape(1));
    ATTN_EXPECT_REJECTS(
        mha.forward(x), attn::MultiHeadAttentionWrapper(std::vector<attn::CausalAttention>{}),
        "an empty list of heads", attn::shape_error, "no heads",
        kit_line("include/attn/arguments.hpp",
                 R"line(checks::require_heads_alike("MultiHeadAttentionWrapper", heads);)line"));
}

// A state_dict without the heads the module asks for names the key it lacks.
TEST(MultiHeadAttentionWrapperTest, LoadNamesAMissingHead) {
    const auto x = case_input<3>(notebook, "x");
    const auto mha = notebook_module(x.shape(1));
    const std::size_t H = mha.num_heads();
    ATTN_EXPECT_REJECTS(
        mha.forward(x), attn::MultiHeadAttentionWrapper::load(mha.state_dict(), H + 1, x.shape(1)),
        "a state_dict of " + str(H) + " heads loaded as " + str(H + 1), attn::shape_error,
        "the state_dict has no heads." + str(H) + ".* entries, but num_heads = " + str(H + 1),
        kit_line("include/attn/multi_head_attention.hpp",
                 R"line(if (head.tensors().empty()) { throw shape_error(...); })line"));
}
