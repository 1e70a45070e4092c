// tests/kit/test_verdict_json.cpp — the "matrix" of a mismatch (attention_matrix_of, as
// attention_matrix_json writes it): an attention matrix's values for tools/kit's picture,
// only for weights and scores of shape (..., T, T), only for a public case set, never for
// another output or a hidden case.
#include "kit/verdict_json.hpp"

#include <gmock/gmock.h>
#include <xtensor/xmath.hpp>

#include <cstdint>
#include <limits>

namespace {

using attn::kit::any_tensor;
using attn::kit::attention_matrix_json;
using attn::kit::attention_matrix_of;
using attn::kit::compare;
using attn::kit::expected_golden;
using attn::kit::float_tensor;
using attn::kit::tolerance;

// Causal weights of 3 tokens, and the same with the mask missing (a leaking upper triangle).
const float_tensor causal = {{1.0f, 0.0f, 0.0f}, {0.5f, 0.5f, 0.0f}, {0.25f, 0.25f, 0.5f}};
const float_tensor leaking = {{0.5f, 0.25f, 0.25f}, {0.5f, 0.5f, 0.0f}, {0.25f, 0.25f, 0.5f}};

expected_golden golden(const float_tensor& tensor) {
    return {"13_x/case/weights.npy",     "a test", tensor, xt::abs(tensor),
            tolerance::for_reduction(3), {}};
}

nlohmann::json matrix(const std::string& case_set, const std::string& output, const any_tensor& got,
                      const float_tensor& expected) {
    const auto found =
        attention_matrix_of(case_set, output, got, expected, compare(got, golden(expected)));
    return found ? attention_matrix_json(*found) : nlohmann::json(nullptr);
}

TEST(AttentionMatrixJsonTest, GivesBothMatricesAndTheCellsBeyondTheTolerance) {
    const auto json = matrix("public", "weights", leaking, causal);
    ASSERT_TRUE(json.is_object());
    EXPECT_EQ(json["shape"], nlohmann::json({3, 3}));
    EXPECT_EQ(json["got"], nlohmann::json({0.5, 0.25, 0.25, 0.5, 0.5, 0.0, 0.25, 0.25, 0.5}));
    EXPECT_EQ(json["expected"], nlohmann::json({1.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.25, 0.25, 0.5}));
    EXPECT_EQ(json["beyond"], nlohmann::json({0, 1, 2}));
}

TEST(AttentionMatrixJsonTest, ShowsTheExpectedMatrixAloneWhereItHasNoResult) {
    auto expected_only = attention_matrix_of("public", "weights", causal, causal, {});
    ASSERT_TRUE(expected_only.has_value());
    expected_only->got.clear();  // as `tools/kit show` writes an expected output
    expected_only->beyond.clear();
    const auto json = attention_matrix_json(*expected_only);
    EXPECT_EQ(json["expected"], nlohmann::json({1.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.25, 0.25, 0.5}));
    EXPECT_FALSE(json.contains("got"));
    EXPECT_FALSE(json.contains("beyond"));
}

TEST(AttentionMatrixJsonTest, WritesSevenDigitsAndNonFiniteValuesAsStrings) {
    float_tensor masked = {{0.1f, -std::numeric_limits<float>::infinity()}, {0.2f, 0.3f}};
    float_tensor got = masked;
    got(0, 1) = std::numeric_limits<float>::quiet_NaN();
    const auto json = matrix("public", "masked", got, masked);
    ASSERT_TRUE(json.is_object());
    EXPECT_EQ(json["expected"], nlohmann::json({0.1, "-inf", 0.2, 0.3}));  // not 0.100000001
    EXPECT_EQ(json["got"][1], "nan");
}

TEST(AttentionMatrixJsonTest, CoversTheWeightsAndScoresOfEveryHead) {
    for (const std::string name :
         {"weights", "scores", "masked", "normalized", "attn_weights", "causal_scores"}) {
        EXPECT_TRUE(attn::kit::names_attention_matrix(name)) << name;
    }
    for (const std::string name : {"context", "mask", "difference", "weights_sum", "heads"}) {
        EXPECT_FALSE(attn::kit::names_attention_matrix(name)) << name;
    }
    const float_tensor heads = xt::stack(xt::xtuple(causal, causal));  // (2, 3, 3)
    const float_tensor wrong = xt::stack(xt::xtuple(causal, leaking));
    const auto json = matrix("public", "weights", wrong, heads);
    ASSERT_TRUE(json.is_object());
    EXPECT_EQ(json["shape"], nlohmann::json({2, 3, 3}));
    EXPECT_EQ(json["beyond"], nlohmann::json({9, 10, 11}));
}

TEST(AttentionMatrixJsonTest, IsNullForAnotherOutputOrShapeOrAHiddenCase) {
    EXPECT_TRUE(matrix("hidden", "weights", leaking, causal).is_null());
    EXPECT_TRUE(matrix("seed 7", "weights", leaking, causal).is_null());
    EXPECT_TRUE(matrix("public", "context", leaking, causal).is_null());
    const float_tensor rows = {{0.5f, 0.5f, 0.0f}, {0.25f, 0.25f, 0.5f}};  // (2, 3)
    EXPECT_TRUE(matrix("public", "weights", float_tensor(rows * 2.0f), rows).is_null());
    const float_tensor transposed = xt::transpose(rows);
    EXPECT_TRUE(matrix("public", "weights", transposed, rows).is_null());  // shapes differ
    const attn::kit::int_tensor counts = xt::ones<std::int64_t>({2, 2});
    EXPECT_TRUE(matrix("public", "weights", counts, xt::ones<float>({2, 2})).is_null());
    const float_tensor one = xt::ones<float>({1, 1});
    EXPECT_TRUE(matrix("public", "weights", float_tensor(one * 0.5f), one).is_null());  // T = 1
    const float_tensor big = xt::zeros<float>({65, 65});  // 4225 values: more than 4096
    EXPECT_TRUE(matrix("public", "scores", float_tensor(big + 1.0f), big).is_null());
    const float_tensor largest = xt::zeros<float>({64, 64});
    EXPECT_TRUE(matrix("public", "scores", float_tensor(largest + 1.0f), largest).is_object());
}

}  // namespace
