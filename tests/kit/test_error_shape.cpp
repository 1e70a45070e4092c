// tests/kit/test_error_shape.cpp — the shape of got − expected, stated as a fact: each shape
// recognised where it holds for every value, and nothing claimed where it does not.
#include "kit/error_shape.hpp"

#include <gmock/gmock.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

const double nan = std::numeric_limits<double>::quiet_NaN();
const double inf = std::numeric_limits<double>::infinity();

// (2, 4) context-like values: no row sums to 1, no value repeats.
const std::vector<double> context = {0.31, -0.52, 0.17, 0.88, -0.24, 0.61, -0.73, 0.05};
const std::vector<std::size_t> two_by_four = {2, 4};

attn::kit::error_description description(const std::vector<double>& got,
                                         const std::vector<double>& expected,
                                         const std::vector<std::size_t>& shape,
                                         bool integer = false, bool withheld = false) {
    const std::vector<double> allowed(expected.size(), integer ? 0.0 : 1e-6);
    attn::kit::error_values values{got, expected, shape, allowed, integer, withheld};
    return attn::kit::describe_error(values);
}

std::string described(const std::vector<double>& got, const std::vector<double>& expected,
                      const std::vector<std::size_t>& shape, bool integer = false,
                      bool withheld = false) {
    return description(got, expected, shape, integer, withheld).text;
}

std::vector<double> times(const std::vector<double>& values, double factor) {
    std::vector<double> out;
    for (const double v : values) out.push_back(v * factor);
    return out;
}

TEST(ErrorShapeTest, StatesAnExactFactor) {
    EXPECT_THAT(described(times(context, 2), context, two_by_four),
                StartsWith("every value is 2× the expected: something counted twice"));
    EXPECT_THAT(described(times(context, 1.0 / 12), context, two_by_four),
                StartsWith("every value is 1/12 of the expected"));
    EXPECT_THAT(described(times(context, 0.75), context, two_by_four),
                StartsWith("every value is 3/4 of the expected"));
    EXPECT_THAT(described(times(context, -1), context, two_by_four), HasSubstr("sign flipped"));
    EXPECT_THAT(described(times(context, 1 / std::sqrt(8.0)), context, two_by_four),
                HasSubstr("1/√8"));
    EXPECT_THAT(described(times(context, std::sqrt(2.0)), context, two_by_four), HasSubstr("√2"));
}

TEST(ErrorShapeTest, StatesAFactorOfACountInWholeNumbers) {
    EXPECT_THAT(described({2'359'296.0 * 2}, {2'359'296.0}, {}, true),
                StartsWith("the value is 2× the expected"));
    EXPECT_THAT(described({1'179'648.0}, {2'359'296.0}, {}, true),
                StartsWith("the value is 1/2 of the expected"));
}

TEST(ErrorShapeTest, NamesACountThatWrappedPast32Bits) {
    const double answer = 12.0 * 1024 * 1024 * 4 * 128;  // 6.4e9: past 2^32
    const double wrapped = answer - 4294967296.0;
    EXPECT_THAT(described({wrapped}, {answer}, {}, true), HasSubstr("multiple of 2^32"));
    EXPECT_THAT(described({wrapped}, {answer}, {}, true), HasSubstr("std::int64_t"));
    EXPECT_THAT(described({-1'000'000.0}, {3'000'000'000.0}, {}, true),
                HasSubstr("a negative count"));
    // A hidden case says nothing of the expected value: a wrap shows only when negative.
    EXPECT_EQ(described({wrapped}, {answer}, {}, true, true), "");
    EXPECT_THAT(described({-1'000'000.0}, {3'000'000'000.0}, {}, true, true),
                HasSubstr("negative count"));
}

TEST(ErrorShapeTest, SaysWhereNanOrInfAppearsWhereTheAnswerIsANumber) {
    auto got = context;
    got[5] = nan;
    got[6] = nan;
    EXPECT_THAT(described(got, context, two_by_four), StartsWith("nan at [1, 1] (2 values)"));
    EXPECT_THAT(described(got, context, two_by_four), HasSubstr("running max that starts at 0"));
    got = context;
    got[0] = inf;
    EXPECT_THAT(described(got, context, two_by_four), StartsWith("inf at [0, 0]"));
}

// Causal weights of 3 tokens: rows sum to 1, zeros above the diagonal.
const std::vector<double> causal = {1, 0, 0, 0.4, 0.6, 0, 0.2, 0.3, 0.5};
const std::vector<std::size_t> three_by_three = {3, 3};

TEST(ErrorShapeTest, SaysTheFutureLeaksWhereWeightsAboveTheDiagonalAreNotZero) {
    const std::vector<double> unmasked = {0.2, 0.5, 0.3, 0.3, 0.3, 0.4, 0.2, 0.3, 0.5};
    EXPECT_THAT(described(unmasked, causal, three_by_three),
                StartsWith("weights above the diagonal are not 0 (at [0, 1]: 0.5)"));
}

TEST(ErrorShapeTest, SaysWhichRowOfWeightsDoesNotSumToOne) {
    // masked after the softmax, without renormalising
    const std::vector<double> zeroed = {0.2, 0, 0, 0.3, 0.3, 0, 0.2, 0.3, 0.5};
    EXPECT_THAT(described(zeroed, causal, three_by_three),
                StartsWith("row [0, :] sums to 0.2, not 1"));
    EXPECT_THAT(described(zeroed, causal, three_by_three, false, true),
                StartsWith("row [0, :] sums to 0.2, not 1"));
}

TEST(ErrorShapeTest, StatesAConstantOffsetAndABiasVectorAlongOneAxis) {
    std::vector<double> shifted = context;
    for (double& v : shifted) v += 0.25;
    EXPECT_THAT(described(shifted, context, two_by_four),
                StartsWith("every value is off by the same amount (got = expected + 0.25)"));
    const std::vector<double> bias = {0.1, -0.2, 0.3, 0.05};
    std::vector<double> biased = context;
    for (std::size_t i = 0; i < biased.size(); ++i) biased[i] += bias[i % 4];
    EXPECT_THAT(described(biased, context, two_by_four),
                StartsWith("got - expected is the same vector [0.1, -0.2, 0.3, 0.05] at every "
                           "row (token)"));
}

TEST(ErrorShapeTest, SaysTheResultIsTransposed) {
    const std::vector<double> square = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.95};
    const std::vector<double> flipped = {0.1, 0.4, 0.7, 0.2, 0.5, 0.8, 0.3, 0.6, 0.95};
    EXPECT_THAT(described(flipped, square, three_by_three), StartsWith("the result is transposed"));
}

TEST(ErrorShapeTest, SaysWhichColumnsCameInAnotherOrder) {
    // two heads of two columns, merged in the wrong order
    const std::vector<double> swapped = {0.17, 0.88, 0.31, -0.52, -0.73, 0.05, -0.24, 0.61};
    EXPECT_THAT(described(swapped, context, two_by_four),
                StartsWith("the right columns in another order: columns 0-1 hold the expected "
                           "2-3, columns 2-3 hold the expected 0-1"));
    const std::vector<double> reversed_rows = {-0.24, 0.61, -0.73, 0.05, 0.31, -0.52, 0.17, 0.88};
    EXPECT_THAT(described(reversed_rows, context, two_by_four),
                StartsWith("the right rows in another order: reversed"));
}

TEST(ErrorShapeTest, SaysWhenOnlyOneRowOrOneValueIsWrong) {
    std::vector<double> last_row = context;
    last_row[4] = last_row[5] = last_row[6] = last_row[7] = 0;
    EXPECT_THAT(described(last_row, context, two_by_four),
                StartsWith("only the values at index 1 of axis 0 (the last) are wrong"));
    std::vector<double> one = context;
    one[2] = 0.5;
    EXPECT_THAT(described(one, context, two_by_four), StartsWith("only [0, 2] is wrong"));
}

TEST(ErrorShapeTest, ClaimsNothingOfAnErrorWithNoShape) {
    const std::vector<double> noisy = {0.32, -0.50, 0.11, 0.90, -0.20, 0.64, -0.70, 0.01};
    EXPECT_EQ(described(noisy, context, two_by_four), "");
    EXPECT_EQ(description(noisy, context, two_by_four).id, "");
}

// A reader groups failures by the shape's id (docs/verdicts.md): the same whatever the numbers.
TEST(ErrorShapeTest, EachShapeHasAnIdThatIsTheSameWhateverTheNumbers) {
    EXPECT_EQ(description(times(context, 2), context, two_by_four).id, "exact_factor");
    EXPECT_EQ(description(times(context, 0.75), context, two_by_four).id, "exact_factor");
    std::vector<double> shifted = context;
    for (double& v : shifted) v += 0.25;
    EXPECT_EQ(description(shifted, context, two_by_four).id, "constant_offset");
    const std::vector<double> square = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.95};
    const std::vector<double> flipped = {0.1, 0.4, 0.7, 0.2, 0.5, 0.8, 0.3, 0.6, 0.95};
    EXPECT_EQ(description(flipped, square, three_by_three).id, "transposed");
    const std::vector<double> swapped = {0.17, 0.88, 0.31, -0.52, -0.73, 0.05, -0.24, 0.61};
    EXPECT_EQ(description(swapped, context, two_by_four).id, "permuted_slices");
    std::vector<double> with_nan = context;
    with_nan[3] = nan;
    EXPECT_EQ(description(with_nan, context, two_by_four).id, "not_finite");
    // A hidden case states less, and its id is that of what it states.
    EXPECT_EQ(description(with_nan, context, two_by_four, false, true).id, "not_finite");
    EXPECT_EQ(description(times(context, 2), context, two_by_four, false, true).id, "");
}

}  // namespace
