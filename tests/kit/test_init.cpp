// tests/kit/test_init.cpp — attn::hashed_uniform (include/attn/module.hpp) computes, bit for
// bit, the tensors tools/recorder/init.py recorded: a case whose module is built from
// attn::HashedUniform(seed) stores only the seed, so both sides must draw the same numbers.
#include "attn/module.hpp"
#include "kit/golden_store.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace {

using attn::kit::golden_store;

TEST(HashedUniformTest, RebuildsEveryRecordedSampleBitForBit) {
    const golden_store& store = golden_store::instance();
    const auto samples = store.files("init_sample");
    ASSERT_FALSE(samples.empty()) << "tools/record recorded no kit/hashed_uniform samples";
    for (const auto* sample : samples) {
        const auto recorded = std::get<attn::kit::float_tensor>(store.load(sample->path));
        const attn::Parameter rebuilt =
            attn::hashed_uniform(sample->init_seed, sample->init_name, sample->shape,
                                 sample->init_low, sample->init_high);
        ASSERT_EQ(rebuilt.shape(), recorded.shape()) << sample->path;
        std::size_t differing = 0;
        for (std::size_t i = 0; i < rebuilt.size(); ++i) {
            differing += std::memcmp(&rebuilt.flat(i), &recorded.flat(i), sizeof(float)) != 0;
        }
        EXPECT_EQ(differing, 0u) << sample->path << ": attn::hashed_uniform(" << sample->init_seed
                                 << ", \"" << sample->init_name << "\", ...) differs from "
                                 << "tools/recorder/init.py in " << differing << " of "
                                 << rebuilt.size() << " values";
    }
}

// A module built from the rule is the module whose state_dict() holds the rule's tensors.
TEST(HashedUniformTest, BuildsALinearUnderItsStateDictNames) {
    attn::HashedUniform source(123);
    // nn.Linear(4, 2)'s weight: the bound 1/sqrt(4) = 0.5.
    const attn::Parameter weight =
        source.parameter("W_query.weight", {2, 3}, attn::Init::linear_weight(4));
    EXPECT_EQ(weight, attn::hashed_uniform(123, "W_query.weight", {2, 3}, -0.5f, 0.5f));
    EXPECT_NE(weight, attn::hashed_uniform(123, "W_key.weight", {2, 3}, -0.5f, 0.5f));
    EXPECT_NE(weight, attn::hashed_uniform(124, "W_query.weight", {2, 3}, -0.5f, 0.5f));
}

TEST(StateDictTest, NamesAMissingKeyAndTheKeysThereAre) {
    attn::StateDict state;
    state.set("W_query.weight", attn::Parameter(attn::Shape{2, 3}));
    try {
        state.at<2>("W_key.weight");
        FAIL() << "no throw";
    } catch (const attn::shape_error& error) {
        EXPECT_STREQ(error.what(), "state_dict has no W_key.weight (it has: W_query.weight)");
    }
}

TEST(StateDictTest, FromStateDictNamesATensorOfAnotherShape) {
    attn::StateDict state;
    state.set("W_query.weight", attn::Parameter(attn::Shape{1, 3}));
    attn::FromStateDict source(state);
    try {
        source.parameter("W_query.weight", {2, 3}, attn::Init::linear_weight(3));
        FAIL() << "no throw";
    } catch (const attn::shape_error& error) {
        EXPECT_NE(std::string(error.what())
                      .find("asks for W_query.weight of shape (2, 3), but "
                            "the state_dict's has shape (1, 3)"),
                  std::string::npos)
            << error.what();
    }
}

}  // namespace
