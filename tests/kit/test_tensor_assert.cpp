// tests/kit/test_tensor_assert.cpp — the tensor assertion accepts what it must and explains
// every rejection: shapes, worst element, distance past the tolerance, known mistakes.
#include "kit/tensor_assert.hpp"

#include <gmock/gmock.h>

#include <limits>

namespace {

using attn::kit::KnownMistake;
using attn::kit::tensors_match;
using attn::kit::Tolerance;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const xt::xarray<float> expected = {{0.2098f, 0.2006f, 0.1981f}, {0.1385f, 0.2379f, 0.2333f}};

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

TEST(TensorsMatchTest, AcceptsAnIdenticalTensor) {
    EXPECT_TRUE(tensors_match("w", expected, expected, Tolerance::for_reduction(1)));
}

TEST(TensorsMatchTest, AcceptsRoundingDifferencesWithinTheTolerance) {
    const xt::xarray<float> rounded = expected * (1.0f + 2e-7f);  // about two float32 ulps
    EXPECT_TRUE(tensors_match("w", rounded, expected, Tolerance::for_reduction(1)));
}

TEST(TensorsMatchTest, RejectsOneElementOffBy1e3AndSaysHowFarPastTheTolerance) {
    xt::xarray<float> off = expected;
    off(1, 2) += 1e-3f;
    const auto verdict = tensors_match("w", off, expected, Tolerance::for_reduction(1024));
    ASSERT_FALSE(verdict);
    EXPECT_THAT(
        first_line(verdict.message()),
        StartsWith("w: 1 of 6 values differ; worst at [1, 2]: got 0.2343, expected 0.2333"));
    EXPECT_THAT(first_line(verdict.message()), HasSubstr("× the tolerance"));
}

TEST(TensorsMatchTest, RejectsNaN) {
    xt::xarray<float> with_nan = expected;
    with_nan(0, 1) = std::numeric_limits<float>::quiet_NaN();
    const auto verdict = tensors_match("w", with_nan, expected, Tolerance::for_reduction(6));
    ASSERT_FALSE(verdict);
    EXPECT_THAT(verdict.message(), HasSubstr("worst at [0, 1]: got nan"));
}

TEST(TensorsMatchTest, AcceptsNaNWhereTheGoldenHasNaN) {
    const xt::xarray<float> nans = {std::numeric_limits<float>::quiet_NaN(), 1.0f};
    EXPECT_TRUE(tensors_match("w", nans, nans, Tolerance::for_reduction(1)));
}

TEST(TensorsMatchTest, RejectsAShapeMismatchNamingBothShapes) {
    const xt::xarray<float> transposed = xt::transpose(expected);
    const auto verdict = tensors_match("w", transposed, expected, Tolerance::for_reduction(1));
    ASSERT_FALSE(verdict);
    EXPECT_THAT(first_line(verdict.message()), HasSubstr("w has shape (3, 2), expected (2, 3)"));
}

TEST(TensorsMatchTest, NamesAKnownMistakeAndItsHint) {
    const xt::xarray<float> wrong_axis = {{0.1f, 0.2f, 0.7f}, {0.3f, 0.3f, 0.4f}};
    const std::vector<KnownMistake> mistakes = {
        {"forgot to divide", "divide by the sum", expected * 3.0f},
        {"softmax over the wrong axis", "use the axis you were given", wrong_axis}};
    const auto verdict =
        tensors_match("w", wrong_axis, expected, Tolerance::for_reduction(3), mistakes);
    ASSERT_FALSE(verdict);
    EXPECT_THAT(first_line(verdict.message()),
                HasSubstr("looks like: softmax over the wrong axis"));
    EXPECT_THAT(verdict.message(), HasSubstr("hint: use the axis you were given"));
    EXPECT_THAT(verdict.message(), Not(HasSubstr("forgot to divide")));
}

TEST(TensorsMatchTest, NamesNoMistakeWhenNoneMatches) {
    const std::vector<KnownMistake> mistakes = {{"forgot to divide", "hint", expected * 3.0f}};
    const auto verdict =
        tensors_match("w", expected * 2.0f, expected, Tolerance::for_reduction(3), mistakes);
    ASSERT_FALSE(verdict);
    EXPECT_THAT(verdict.message(), Not(HasSubstr("looks like")));
}

TEST(TensorsMatchTest, PrintsBothTensorsInPyTorchFormat) {
    const auto verdict = tensors_match("w", expected * 2.0f, expected, Tolerance::for_reduction(1));
    EXPECT_THAT(verdict.message(), HasSubstr("got:\n    tensor([[0.4196, 0.4012, 0.3962],\n"
                                             "            [0.2770, 0.4758, 0.4666]])"));
    EXPECT_THAT(verdict.message(), HasSubstr("expected:\n    tensor([[0.2098, 0.2006, 0.1981],"));
}

TEST(ToleranceTest, GrowsWithTheSquareRootOfTheReductionLength) {
    const auto one = Tolerance::for_reduction(1);
    const auto hundred = Tolerance::for_reduction(100);
    EXPECT_DOUBLE_EQ(hundred.atol, 10 * one.atol);
    EXPECT_DOUBLE_EQ(hundred.rtol, 10 * one.rtol);
    EXPECT_LT(Tolerance::for_reduction(1024).allowed(1.0), 1e-3)
        << "an answer off by 1e-3 must fail at every reduction length the kit uses";
}

}  // namespace
