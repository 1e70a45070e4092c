// tests/kit/test_fast_cpu_attention.cpp — the fast CPU forward (kit/cpu/fast_attention.cpp)
// against the goldens of exercise 19's module: every recorded forward case, from a state_dict
// or from HashedUniform, compared by the kit's one comparison at the kit's tolerance
// (ctest kit.fast_cpu_attention_goldens).
#include "attn/module.hpp"
#include "attn/multi_head_attention.hpp"
#include "kit/cases.hpp"
#include "kit/compare.hpp"
#include "kit/cpu/fast_attention.hpp"
#include "kit/golden_store.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace {

using attn::kit::golden_store;

// Exercise 19's forward cases, and the module each was recorded with (tests/test_19 builds it
// the same way).
attn::MultiHeadAttention module_of(const golden_store& store, const attn::kit::case_entry& entry,
                                   std::size_t d_in) {
    const auto size = [&](const std::string& name) {
        return static_cast<std::size_t>(store.load_as<std::int64_t, 0>(entry.file(name))());
    };
    if (entry.kind == "multi_head_attention") {
        return attn::MultiHeadAttention::load(attn::kit::state_dict_of(store, entry, ""),
                                              size("num_heads"), size("context_length"));
    }
    attn::HashedUniform init(static_cast<std::uint64_t>(size("init_seed")));
    return attn::MultiHeadAttention(d_in, size("d_out"), size("context_length"), size("num_heads"),
                                    size("qkv_bias") != 0, init);
}

TEST(FastCpuAttention, EqualsEveryForwardGoldenOfExercise19) {
    const golden_store& store = golden_store::instance();
    int compared = 0;
    for (const auto* entry : store.cases("19")) {
        if (entry->kind != "multi_head_attention" && entry->kind != "multi_head_attention_hashed") {
            continue;
        }
        const auto x = store.load_as<float, 3>(entry->file("x"));
        const auto mha = module_of(store, *entry, x.shape(2));
        const attn::cpu::FastMultiHeadAttention fast(mha);
        const auto golden = store.expected(entry->file("context"));
        const auto verdict = attn::kit::compare(attn::kit::to_any_tensor(fast.forward(x)), golden);
        EXPECT_TRUE(verdict.passed)
            << entry->path << ": " << attn::kit::explain("forward(x)", golden, verdict);
        ++compared;
    }
    EXPECT_GE(compared, 4) << "exercise 19's case set has fewer forward cases than expected";
}

TEST(FastCpuAttention, RejectsXOfTheWrongWidthAsTheModuleDoes) {
    attn::HashedUniform init(7);
    const attn::MultiHeadAttention mha(8, 8, 16, 2, false, init);
    const attn::cpu::FastMultiHeadAttention fast(mha);
    const attn::Tensor3 x = xt::zeros<float>({1, 4, 6});
    EXPECT_THROW(fast.forward(x), attn::shape_error);
}

}  // namespace
