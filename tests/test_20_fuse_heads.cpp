// tests/test_20_fuse_heads.cpp — Exercise 20: a wrapper's heads fused into one
// MultiHeadAttention (ch03.ipynb In [35] and In [36]). Compiled once; linked against exercises/
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
#include <map>
#include <regex>
#include <string>
#include <utility>
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

using layer_shape = std::pair<std::size_t, std::size_t>;

std::string shape_text(layer_shape shape) {
    return "(" + std::to_string(shape.first) + ", " + std::to_string(shape.second) + ")";
}

// MultiHeadAttention's constructor sees only the layers it is given, so where W_query and
// out_proj disagree on d_out it must blame one of them, and blames out_proj ("out_proj.weight
// has shape (4, 4), but it must be (d_out, d_out) = (2, 2)"), or where W_key and W_query
// differ, W_key. The wrapper tells which layer of the fused module is not what fusing it
// gives: its layers are (num_heads * head_dim, d_in), out_proj (d_out, d_out). Reads the
// shapes the constructor's message states (attn/checks.hpp: "<layer>.weight has shape (a, b)",
// "but W_query.weight has (a, b)", "it must be (d_out, d_out) = (k, k)", "<layer>.bias has
// shape (n,), but its dimension 0 must equal d_out = k") and names the first
// layer whose shape is not the fused one, or returns "" where the message says nothing of the
// kind.
std::string wrong_layer(const std::string& message,
                        const attn::MultiHeadAttentionWrapper& wrapper) {
    const std::size_t heads = wrapper.num_heads(), head_dim = wrapper.heads[0].d_out();
    const std::size_t d_in = wrapper.d_in(), d_out = wrapper.d_out();
    std::map<std::string, layer_shape> stated;
    enum layer_group : std::size_t { layer_name = 1, layer_rows, layer_columns };
    const std::regex layer_has(
        R"((W_query|W_key|W_value|out_proj)\.weight has (?:shape )?\((\d+), (\d+)\))");
    for (auto it = std::sregex_iterator(message.begin(), message.end(), layer_has);
         it != std::sregex_iterator(); ++it) {
        stated.emplace((*it)[layer_name].str(),
                       layer_shape{std::stoul((*it)[layer_rows].str()),
                                   std::stoul((*it)[layer_columns].str())});
    }
    std::smatch must_be;
    const bool square_check = std::regex_search(
        message, must_be,
        std::regex(R"(out_proj\.weight has shape .*must be \(d_out, d_out\) = \((\d+), )"));
    const layer_shape fused{d_out, d_in}, identity{d_out, d_out};
    const std::string shapes = "fusing " + std::to_string(heads) +
                               " heads of (head_dim, d_in) = " + shape_text({head_dim, d_in}) +
                               " gives W_query, W_key and W_value of " + shape_text(fused) +
                               " = (num_heads * head_dim, d_in)";
    const std::string stack =
        ": stack the heads' weights row after row, untransposed (head h's "
        "are rows [h * head_dim, (h + 1) * head_dim)); MultiHeadAttention "
        "said: ";
    for (const char* layer : {"W_query", "W_key", "W_value"}) {
        const auto found = stated.find(layer);
        if (found == stated.end() || found->second == fused) continue;
        const layer_shape got = found->second;
        const std::string looks = got == layer_shape{d_in, d_out} && d_in != d_out
                                      ? " (the transpose of it)"
                                  : got == layer_shape{head_dim, heads * d_in} && heads > 1
                                      ? " (the heads side by side, along the columns)"
                                      : "";
        return std::string(layer) + ".weight is " + shape_text(got) + looks + ", but " + shapes +
               stack;
    }
    std::smatch bias_check;  // "W_query.bias has shape (4,), but its dimension 0 must equal
                             // d_out = 2": the weight's rows, where the bias has d_out entries
    enum bias_group : std::size_t { bias_layer = 1, bias_length, bias_d_out };
    const bool bias_of_d_out =
        std::regex_search(
            message, bias_check,
            std::regex(
                R"((W_query|W_key|W_value)\.bias has shape \((\d+),\), but its dimension 0 must equal d_out = (\d+))")) &&
        std::stoul(bias_check[bias_length].str()) == d_out;
    const bool out_proj_right =
        square_check && stated.count("out_proj") != 0 && stated["out_proj"] == identity;
    if (out_proj_right || bias_of_d_out) {
        // out_proj, or the layer's bias, has the fused d_out: the weight's rows are what differ.
        const std::string layer = bias_of_d_out ? bias_check[bias_layer].str() : "W_query";
        const std::size_t rows =
            std::stoul(bias_of_d_out ? bias_check[bias_d_out].str() : must_be[1].str());
        const std::string looks = rows == d_in && d_in != head_dim ? " (d_in: transposed?)"
                                  : rows == head_dim && head_dim != d_in
                                      ? " (one head's head_dim: the heads side by side?)"
                                      : "";
        return layer + ".weight has " + std::to_string(rows) + " rows" + looks + ", but " + shapes +
               stack;
    }
    return "";
}

// attn::fuse_heads(wrapper), where a shape_error of MultiHeadAttention's constructor names the
// layer built otherwise than fusing the wrapper builds it (wrong_layer).
attn::MultiHeadAttention fused_module(const attn::MultiHeadAttentionWrapper& wrapper) {
    try {
        return attn::fuse_heads(wrapper);
    } catch (const attn::shape_error& error) {
        const std::string named = wrong_layer(error.what(), wrapper);
        if (named.empty()) throw;
        throw attn::shape_error(named + error.what());
    }
}

}  // namespace

// One call of the student's fuse_heads, its throw reported as ATTN_CALL reports it.
#define ATTN_FUSE(wrapper)                                        \
    the_case.run("attn::fuse_heads(wrapper)", __FILE__, __LINE__, \
                 [&] { return fused_module(wrapper); })

ATTN_CASE(fuse_heads) {
    const auto x = the_case.input<3>("x");  // (B, T, d_in)
    const auto wrapper = wrapper_of(the_case);
    const attn::MultiHeadAttention fused = ATTN_FUSE(wrapper);
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
    const attn::MultiHeadAttention fused = ATTN_FUSE(wrapper);
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
        fused_module(wrapper).forward(x), fused_module(wrapper).forward(longer),
        "x of " + std::to_string(longer.shape(1)) + " tokens for a wrapper of context_length " +
            std::to_string(T),
        attn::shape_error, "more than the context_length = " + std::to_string(T),
        R"line(return MultiHeadAttention(..., wrapper.num_heads(), wrapper.context_length());)line");
}
