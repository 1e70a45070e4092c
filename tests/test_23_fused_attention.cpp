// tests/test_23_fused_attention.cpp — Exercise 23: the fused causal attention kernel (the GPU
// track; ch03.ipynb In [36]'s attention, one Thrust functor per query row). Compiled once;
// linked against exercises/ and solutions/23_fused_attention.cu, which run on this build's
// backend: Thrust's OpenMP backend (the default build) or CUDA (preset cuda). The cases are in
// reference_data/23_fused_attention/: the kernel on queries, keys and values (B, heads, T,
// head_dim), among them rows whose scores all lie far below or far above zero; the kernel run
// twice on many rows, compared with itself bit for bit (a race between rows); then
// MultiHeadAttention's forward with the kernel inside (the kit's fused module,
// kit/gpu/fused_module.hpp) on exercise 19's and exercise 22's cases and goldens.
#include "attn/errors.hpp"
#include "attn/fused_attention.hpp"
#include "attn/gpt2.hpp"
#include "attn/module.hpp"
#include "attn/multi_head_attention.hpp"
#include "kit/gpu/backend.hpp"
#include "kit/gpu/tensors.hpp"
#include "kit/testing.hpp"

#include <xtensor/xview.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

using attn::kit::case_input;
using attn::kit::case_integer;
using attn::kit::case_state_dict;
using attn::kit::kit_line;
using attn::kit::stub_line;

namespace {

// A CUDA build on a machine without a CUDA device skips every test (a skip is never a pass);
// the OpenMP backend always runs.
class BackendEnvironment : public ::testing::Environment {
public:
    void SetUp() override {
        if (!attn::gpu::device_available())
            GTEST_SKIP() << "the " << attn::gpu::backend_name()
                         << " backend cannot run here: " << attn::gpu::device_description();
    }
};

[[maybe_unused]] const auto* const backend_environment =
    ::testing::AddGlobalTestEnvironment(new BackendEnvironment);

}  // namespace

// Your kernel on queries, keys and values (B, heads, T, head_dim), copied to the backend's
// memory and back by the kit.
ATTN_CASE(causal_attention) {
    const auto queries = the_case.input<4>("queries"), keys = the_case.input<4>("keys"),
               values = the_case.input<4>("values");
    ATTN_RESULT("context", attn::gpu::causal_attention(queries, keys, values));
}

// Your kernel twice on the same inputs, a case of many rows, enough for the OpenMP backend's
// threads (or a GPU's) to run rows at the same time: both results must be the golden, and the
// same bit for bit. Rows that share memory (one scratch buffer for every row) differ from run
// to run, and the test says so first.
ATTN_CASE(causal_attention_twice) {
    const auto queries = the_case.input<4>("queries"), keys = the_case.input<4>("keys"),
               values = the_case.input<4>("values");
    ATTN_RESULT_TWICE("context", "context_again",
                      attn::gpu::causal_attention(queries, keys, values));
}

// MultiHeadAttention's forward with your kernel inside: exercise 19's modules.
ATTN_CASE(multi_head_attention) {
    const auto x = the_case.input<3>("x");  // (B, T, d_in)
    const auto mha = attn::MultiHeadAttention::load(
        the_case.state_dict(), the_case.size("num_heads"), the_case.size("context_length"));
    ATTN_RESULT("context", attn::gpu::multi_head_attention(mha, x));
}

// ... and exercise 22's GPT-2 small layer (d 768, 12 heads of head_dim 64) at T = 64.
ATTN_CASE(gpt2_forward) {
    attn::HashedUniform init(static_cast<std::uint64_t>(the_case.integer("init_seed")));
    const auto mha = attn::gpt2_small_attention(init, the_case.integer("qkv_bias") != 0);
    const attn::Tensor3 x = attn::hashed_uniform(
        static_cast<std::uint64_t>(the_case.integer("x_seed")), "x",
        {the_case.size("batch"), the_case.size("T"), the_case.size("d_in")}, -1.0f, 1.0f);
    ATTN_RESULT("context", attn::gpu::multi_head_attention(mha, x));
}

namespace {

const std::string heads_case = "23_fused_attention/three_heads";

attn::Tensor4 heads(const std::string& name) { return case_input<4>(heads_case, name); }

}  // namespace

TEST(FusedAttentionTest, RejectsAShapeWithNoTokens) {
    const auto queries = heads("queries"), keys = heads("keys"), values = heads("values");
    const auto signed_size = [](std::size_t n) { return static_cast<std::int64_t>(n); };
    const attn::gpu::HeadsShape no_tokens{signed_size(queries.shape(0)),
                                          signed_size(queries.shape(1)), 0,
                                          signed_size(queries.shape(3))};
    ATTN_EXPECT_REJECTS(
        attn::gpu::causal_attention(queries, keys, values),
        attn::gpu::fused_causal_attention(nullptr, nullptr, nullptr, nullptr, no_tokens),
        "a HeadsShape of T = 0 tokens", attn::shape_error, "T is 0",
        stub_line("arguments::fused_causal_attention("));
}

TEST(FusedAttentionTest, RejectsKeysOfAnotherShape) {
    const auto queries = heads("queries"), keys = heads("keys"), values = heads("values");
    const attn::Tensor4 fewer_keys =
        xt::view(keys, xt::all(), xt::all(), xt::range(1, xt::placeholders::_), xt::all());
    ATTN_EXPECT_REJECTS(
        attn::gpu::causal_attention(queries, keys, values),
        attn::gpu::causal_attention(queries, fewer_keys, values),
        "keys of shape " + attn::shape_string(fewer_keys.shape()), attn::shape_error,
        "keys has shape " + attn::shape_string(fewer_keys.shape()) + ", but queries has " +
            attn::shape_string(queries.shape()),
        kit_line(
            "kit/gpu/tensors.cpp",
            R"line(checks::require_attention_heads("causal_attention", queries, keys, values);)line"));
}

TEST(FusedModuleTest, RejectsMoreTokensThanTheContextLength) {
    const std::string at = "23_fused_attention/module_notebook";
    const auto x = case_input<3>(at, "x");
    const std::size_t context_length = x.shape(1);
    const auto mha = attn::MultiHeadAttention::load(case_state_dict(at),
                                                    case_integer(at, "num_heads"), context_length);
    const attn::Tensor3 longer =
        xt::concatenate(xt::xtuple(x, xt::view(x, xt::all(), xt::range(0, 1), xt::all())), 1);
    ATTN_EXPECT_REJECTS(
        attn::gpu::multi_head_attention(mha, x), attn::gpu::multi_head_attention(mha, longer),
        "x of T = " + std::to_string(context_length + 1) + " tokens", attn::shape_error,
        "more than the context_length = " + std::to_string(context_length),
        kit_line(
            "kit/gpu/tensors.cpp",
            R"line(checks::require_batch("multi_head_attention", x, module.d_in(), module.context_length());)line"));
}
