// tests/test_24_tiled_attention.cpp — Exercise 24: tiled causal attention in CUDA, tiles of keys
// and values in shared memory (the GPU track; ch03.ipynb In [36]'s attention). Compiled once;
// linked against exercises/ and solutions/24_tiled_attention.cu, which run on the kit's CUDA
// emulator (g++, every build without CUDA) or on a GPU (preset cuda). The cases are in
// reference_data/24_tiled_attention/: the kernel on queries, keys and values (B, heads, T,
// head_dim), among them T not a multiple of the tile (a partial last tile), several heads, one
// token and the notebook's own heads. On the emulator a kernel that breaks a rule of the GPU
// (a race, a barrier not every thread reaches, an index out of bounds) fails with the
// emulator's finding as its named mistake; a right kernel that reads more than it needs, or
// whose shared memory conflicts on its banks, passes with a note.
#include "attn/checks.hpp"
#include "attn/errors.hpp"
#include "attn/tiled_attention.hpp"
#include "kit/testing.hpp"
#include "kit/verdicts.hpp"

#if defined(ATTN_KERNEL_ON_CUDA)
#include "kit/gpu/backend.hpp"
#include "kit/gpu/tensors.hpp"
#else
#include "kit/emu.hpp"
#endif

#include <cstddef>
#include <cstdint>
#include <string>

using attn::kit::case_input;
using attn::kit::stub_line;

namespace {

#if defined(ATTN_KERNEL_ON_CUDA)
// A CUDA build on a machine without a CUDA device skips every test (a skip is never a pass).
class DeviceEnvironment : public ::testing::Environment {
public:
    void SetUp() override {
        if (!attn::gpu::device_available())
            GTEST_SKIP() << "the CUDA backend cannot run here: " << attn::gpu::device_description();
    }
};

[[maybe_unused]] const auto* const device_environment =
    ::testing::AddGlobalTestEnvironment(new DeviceEnvironment);
#endif

std::int64_t signed_size(std::size_t n) { return static_cast<std::int64_t>(n); }

}  // namespace

namespace attn::gpu {

// Your kernel on attn tensors: on the emulator straight from the host's memory, with its
// notes; on CUDA copied to the GPU and back by the kit (kit/gpu/tensors.hpp).
Tensor4 tiled_causal_attention(const Tensor4& queries, const Tensor4& keys, const Tensor4& values) {
#if defined(ATTN_KERNEL_ON_CUDA)
    return causal_attention(queries, keys, values, tiled_causal_attention);
#else
    checks::require_attention_heads("tiled_causal_attention", queries, keys, values);
    const HeadsShape shape{signed_size(queries.shape(0)), signed_size(queries.shape(1)),
                           signed_size(queries.shape(2)), signed_size(queries.shape(3))};
    Tensor4 context = xt::zeros<float>(queries.shape());
    tiled_causal_attention(queries.data(), keys.data(), values.data(), context.data(), shape);
    for (const auto& note : kit::emu::tiled_attention_notes(shape)) kit::note_performance(note);
    return context;
#endif
}

}  // namespace attn::gpu

// Your kernel on queries, keys and values (B, heads, T, head_dim).
ATTN_CASE(causal_attention) {
    const auto queries = the_case.input<4>("queries"), keys = the_case.input<4>("keys"),
               values = the_case.input<4>("values");
    ATTN_RESULT("context", attn::gpu::tiled_causal_attention(queries, keys, values));
}

namespace {

const std::string heads_case = "24_tiled_attention/three_heads";

attn::Tensor4 heads(const std::string& name) { return case_input<4>(heads_case, name); }

}  // namespace

TEST(TiledAttentionTest, RejectsAShapeWithNoTokens) {
    const auto queries = heads("queries"), keys = heads("keys"), values = heads("values");
    const attn::gpu::HeadsShape no_tokens{signed_size(queries.shape(0)),
                                          signed_size(queries.shape(1)), 0,
                                          signed_size(queries.shape(3))};
    ATTN_EXPECT_REJECTS(
        attn::gpu::tiled_causal_attention(queries, keys, values),
        attn::gpu::tiled_causal_attention(nullptr, nullptr, nullptr, nullptr, no_tokens),
        "a HeadsShape of T = 0 tokens", attn::shape_error, "T is 0",
        stub_line("arguments::tiled_causal_attention("));
}

TEST(TiledAttentionTest, RejectsAHeadDimLargerThanATileRow) {
    const auto queries = heads("queries"), keys = heads("keys"), values = heads("values");
    const attn::gpu::HeadsShape too_wide{
        signed_size(queries.shape(0)), signed_size(queries.shape(1)), signed_size(queries.shape(2)),
        attn::gpu::max_head_dim + 1};
    ATTN_EXPECT_REJECTS(
        attn::gpu::tiled_causal_attention(queries, keys, values),
        attn::gpu::tiled_causal_attention(nullptr, nullptr, nullptr, nullptr, too_wide),
        "a HeadsShape of head_dim = " + std::to_string(attn::gpu::max_head_dim + 1),
        attn::shape_error, "head_dim is " + std::to_string(attn::gpu::max_head_dim + 1),
        stub_line("arguments::tiled_causal_attention("));
}
