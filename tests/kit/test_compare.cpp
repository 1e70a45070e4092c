// tests/kit/test_compare.cpp — the comparison accepts what it must and explains every
// rejection: dtype, shape, worst element, distance past the tolerance, known mistakes.
#include "kit/compare.hpp"

#include <gmock/gmock.h>
#include <xtensor/xmath.hpp>

#include <cstdint>
#include <cstring>
#include <limits>

namespace {

using attn::kit::any_tensor;
using attn::kit::compare;
using attn::kit::expected_golden;
using attn::kit::float_tensor;
using attn::kit::int_tensor;
using attn::kit::tolerance;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const float_tensor weights = {{0.2098f, 0.2006f, 0.1981f}, {0.1385f, 0.2379f, 0.2333f}};

// An expected golden whose error scale is |value| (a value rounded once), reduction n.
expected_golden golden(const any_tensor& tensor, std::size_t n = 1,
                       std::vector<attn::kit::known_mistake> mistakes = {}) {
    float_tensor scale;
    if (const auto* values = std::get_if<float_tensor>(&tensor)) scale = xt::abs(*values);
    return {"01_x/case/w.npy",           "a test",           tensor, scale,
            tolerance::for_reduction(n), std::move(mistakes)};
}

TEST(CompareTest, AcceptsAnIdenticalTensor) {
    EXPECT_TRUE(compare(weights, golden(weights)).passed);
}

TEST(CompareTest, AcceptsRoundingDifferencesWithinTheTolerance) {
    const float_tensor rounded = weights * (1.0f + 2e-7f);  // about two float32 ulps
    EXPECT_TRUE(compare(rounded, golden(weights)).passed);
}

TEST(CompareTest, RejectsOneElementOffAndSaysWhereAndHowFarPastTheTolerance) {
    float_tensor off = weights;
    off(1, 2) += 1e-3f;
    const auto verdict = compare(off, golden(weights, 1024));
    ASSERT_FALSE(verdict.passed);
    EXPECT_THAT(verdict.reason,
                StartsWith("1 of 6 values differ; worst at [1, 2]: got 0.2343, expected 0.2333"));
    EXPECT_THAT(verdict.reason, HasSubstr("× the tolerance"));
}

TEST(CompareTest, ScalesTheToleranceWithTheMagnitudeOfWhatWasSummed) {
    // 100.5 - 100.0 in float32 is exact, but a sum of terms near +-1e4 that cancel to 0.5
    // may carry errors near 1e-3: a scale of 2e4 allows them, |expected| = 0.5 would not.
    const float_tensor expected = {0.5f};
    const float_tensor computed_otherwise = {0.5f + 1e-3f};
    auto cancelling = golden(expected, 5);
    EXPECT_FALSE(compare(computed_otherwise, cancelling).passed);
    cancelling.scale = float_tensor{2e4f};
    EXPECT_TRUE(compare(computed_otherwise, cancelling).passed);
}

TEST(CompareTest, RejectsNaN) {
    float_tensor with_nan = weights;
    with_nan(0, 1) = std::numeric_limits<float>::quiet_NaN();
    const auto verdict = compare(with_nan, golden(weights, 6));
    ASSERT_FALSE(verdict.passed);
    EXPECT_THAT(verdict.reason, HasSubstr("worst at [0, 1]: got nan"));
}

TEST(CompareTest, PrintsANegativeNaNAsPyTorchDoes) {
    float_tensor with_nan = weights;
    with_nan(1, 0) = -std::numeric_limits<float>::quiet_NaN();  // 0 * -inf gives this sign
    const auto verdict = compare(with_nan, golden(weights, 6));
    EXPECT_THAT(verdict.reason, HasSubstr("got nan,"));
    EXPECT_THAT(verdict.reason + verdict.details, Not(HasSubstr("-nan")));
}

TEST(CompareTest, ExplainsA0dValueWithoutAPosition) {
    const float_tensor one = xt::xarray<float>(1.0f);
    const float_tensor almost = xt::xarray<float>(0.9f);
    const auto verdict = compare(almost, golden(one, 6));
    ASSERT_FALSE(verdict.passed);
    EXPECT_THAT(verdict.reason, StartsWith("got 0.9, expected 1 ("));
    EXPECT_THAT(verdict.reason + verdict.details, Not(HasSubstr("[]")));
}

TEST(CompareTest, AcceptsNaNWhereTheGoldenHasNaN) {
    const float_tensor nans = {std::numeric_limits<float>::quiet_NaN(), 1.0f};
    EXPECT_TRUE(compare(nans, golden(nans)).passed);
}

TEST(CompareTest, RejectsAShapeMismatchNamingBothShapes) {
    const float_tensor transposed = xt::transpose(weights);
    const auto verdict = compare(transposed, golden(weights));
    ASSERT_FALSE(verdict.passed);
    EXPECT_EQ(verdict.reason, "has shape (3, 2), expected (2, 3)");
}

TEST(CompareTest, ComparesInt64Exactly) {
    const int_tensor parameters = {2362368};
    EXPECT_TRUE(compare(parameters, golden(parameters)).passed);
    const auto verdict = compare(int_tensor{2362369}, golden(parameters));
    ASSERT_FALSE(verdict.passed);
    EXPECT_THAT(verdict.reason, HasSubstr("got 2,362,369, expected 2,362,368 (must be equal; 1 "
                                          "more than expected, ×1.0000004)"));
}

// GPT-2's two documented parameter counts differ in their 7th digit: %g would print both as
// 2.36e+06. Every int64 in the message is exact, the first mismatches included.
TEST(CompareTest, ShowsInt64CountsExactlyAndByHowMuchTheyDiffer) {
    const auto verdict = compare(int_tensor{2360064, 7}, golden(int_tensor{2362368, 8}));
    ASSERT_FALSE(verdict.passed);
    EXPECT_THAT(verdict.reason,
                HasSubstr("worst at [0]: got 2,360,064, expected 2,362,368 (must be equal; 2,304 "
                          "fewer than expected, ×0.999)"));
    EXPECT_THAT(verdict.details, HasSubstr("[0] got 2,360,064, expected 2,362,368, |diff| 2,304"));
    EXPECT_THAT(verdict.details, HasSubstr("[1] got 7, expected 8, |diff| 1"));
    EXPECT_THAT(verdict.reason + verdict.details, Not(HasSubstr("e+06")));
}

TEST(CompareTest, ShowsAnOverflowedCountExactly) {
    const auto verdict = compare(int_tensor{-1073741824}, golden(int_tensor{3221225472}));
    ASSERT_FALSE(verdict.passed);
    EXPECT_THAT(verdict.reason, HasSubstr("got -1,073,741,824, expected 3,221,225,472 (must be "
                                          "equal; 4,294,967,296 fewer than expected)"));
    EXPECT_THAT(verdict.diagnosis, HasSubstr("got -1,073,741,824, the answer minus a multiple of "
                                             "2^32"));
}

TEST(CompareTest, RejectsAnotherDtype) {
    const auto verdict = compare(float_tensor{2362368.0f}, golden(int_tensor{2362368}));
    ASSERT_FALSE(verdict.passed);
    EXPECT_EQ(verdict.reason, "has dtype float32, expected int64");
}

TEST(CompareTest, NamesAKnownMistakeAndItsHint) {
    const float_tensor wrong_axis = {{0.1f, 0.2f, 0.7f}, {0.3f, 0.3f, 0.4f}};
    const auto expected =
        golden(weights, 3,
               {{"forgot to divide", "divide by the sum", float_tensor(weights * 3.0f)},
                {"softmax over the wrong axis", "use your axis", wrong_axis}});
    const auto verdict = compare(wrong_axis, expected);
    ASSERT_FALSE(verdict.passed);
    EXPECT_EQ(verdict.mistake, "softmax over the wrong axis");
    EXPECT_EQ(verdict.hint, "use your axis");
    const auto text = attn::kit::explain("attn::softmax(the_case.input<2>(\"s\"), 0)", expected,
                                         verdict, "two_rows");
    // The first line: the call in the student's words, what is wrong, what it looks like;
    // then the case and its description, the golden, the hint, each on its own line.
    EXPECT_EQ(text.substr(0, text.find('\n')),
              "softmax(s, 0): 6 of 6 values differ; worst at [0, 2]: got 0.7, expected 0.1981 "
              "(4.31e+05× the tolerance) — looks like: softmax over the wrong axis");
    EXPECT_THAT(text, HasSubstr("\n  case two_rows: a test\n  PyTorch's answer: 01_x/case/w.npy "
                                "(`tools/kit show 01 two_rows` prints it)\n  hint: "
                                "use your axis\n"));
}

// A reader groups and counts by the id and the family, never by the display text.
TEST(CompareTest, ANamedMistakeCarriesItsIdAndFamilyAndATakenBackNameNeither) {
    const float_tensor first_row_left = {{0.0f, 0.0f, 0.0f}, {0.1385f, 0.2379f, 0.2333f}};
    const auto expected = golden(weights, 3,
                                 {{"the first row left unfilled", "start at 0", first_row_left,
                                   false, "first_row_unfilled", "first_unfilled"}});
    const auto verdict = compare(first_row_left, expected);
    EXPECT_EQ(verdict.mistake_id, "first_row_unfilled");
    EXPECT_EQ(verdict.mistake_family, "first_unfilled");
    const auto taken_back = attn::kit::take_back_name(verdict);
    EXPECT_EQ(taken_back.taken_back, "the first row left unfilled");
    EXPECT_EQ(taken_back.mistake_id, "");
    EXPECT_EQ(taken_back.mistake_family, "");
    // Its error still has a shape, with an id of its own.
    EXPECT_EQ(taken_back.diagnosis_id, "one_slice");
}

TEST(CompareTest, NamesAMistakeOfAnotherShape) {
    const float_tensor feature_gram = {{1.0f, 2.0f}, {2.0f, 5.0f}};
    const auto verdict = compare(
        feature_gram, golden(weights, 3, {{"computed inputs.T @ inputs", "h", feature_gram}}));
    EXPECT_EQ(verdict.mistake, "computed inputs.T @ inputs");
}

TEST(CompareTest, NamesNoMistakeWhenNoneMatches) {
    const auto verdict =
        compare(float_tensor(weights * 2.0f),
                golden(weights, 3, {{"forgot to divide", "hint", float_tensor(weights * 3.0f)}}));
    ASSERT_FALSE(verdict.passed);
    EXPECT_EQ(verdict.mistake, "");
    EXPECT_THAT(attn::kit::explain("w", golden(weights), verdict), Not(HasSubstr("looks like")));
}

// An accumulator read before it is set holds -1.69e38 in the kit's builds
// (-ftrivial-auto-var-init=pattern): the failure says so, whether the pattern value shows
// itself or, divided by, leaves every value near 1e-39, which an "all zeros" mistake would
// otherwise match.
TEST(CompareTest, SaysAVariableWasReadBeforeItWasSetWhereValuesHoldTheFillPattern) {
    float pattern;
    const std::uint32_t bits = 0xFEFEFEFEu;
    std::memcpy(&pattern, &bits, sizeof pattern);
    float_tensor summed = weights;
    summed(0, 1) = pattern + 0.25f;
    const auto verdict = compare(summed, golden(weights, 6));
    ASSERT_FALSE(verdict.passed);
    EXPECT_THAT(verdict.diagnosis, HasSubstr("read before it is set"));

    const float_tensor divided = weights / pattern;  // every value about -1.2e-39
    const auto zeros =
        golden(weights, 6,
               {{"returned all zeros", "write the result", float_tensor(xt::zeros_like(weights))}});
    const auto named = compare(divided, zeros);
    ASSERT_FALSE(named.passed);
    EXPECT_EQ(named.mistake, "");
    EXPECT_THAT(named.diagnosis, HasSubstr("read before it is set"));
    EXPECT_THAT(compare(float_tensor(weights * 2.0f), golden(weights, 6)).diagnosis,
                Not(HasSubstr("read before it is set")));
}

// Each recorded mistake the result is not is listed, so a reader can tell a name another case
// gives by coincidence; a result that passes is none of them.
TEST(CompareTest, ListsTheRecordedMistakesTheResultIsNot) {
    const float_tensor doubled = float_tensor(weights * 2.0f);
    const float_tensor tripled = float_tensor(weights * 3.0f);
    const auto expected =
        golden(weights, 3, {{"doubled", "h", doubled}, {"tripled", "h", tripled}});
    EXPECT_THAT(compare(doubled, expected).ruled_out, ::testing::ElementsAre("tripled"));
    EXPECT_THAT(compare(weights, expected).ruled_out, ::testing::ElementsAre("doubled", "tripled"));
    EXPECT_THAT(compare(float_tensor(weights * 4.0f), expected).ruled_out,
                ::testing::ElementsAre("doubled", "tripled"));
}

// A mismatch no recorded mistake explains is described by the shape of its error, on the
// failure's first line.
TEST(CompareTest, DescribesTheShapeOfAnErrorNoMistakeNames) {
    const auto verdict = compare(float_tensor(weights * 2.0f), golden(weights, 3));
    EXPECT_THAT(verdict.diagnosis, StartsWith("every value is 2× the expected"));
    EXPECT_THAT(attn::kit::explain("w", golden(weights), verdict),
                HasSubstr("— every value is 2× the expected"));
}

// Where two recorded mistakes give the same tensor on a case (tools/record marks the kept one
// "ambiguous"), naming one would be a guess: neither is named there.
TEST(CompareTest, NamesNoMistakeThatAnotherGivesTheSameTensorFor) {
    const float_tensor doubled = float_tensor(weights * 2.0f);
    const auto verdict =
        compare(doubled, golden(weights, 6, {{"scaled twice", "scale once", doubled, true}}));
    ASSERT_FALSE(verdict.passed);
    EXPECT_EQ(verdict.mistake, "");
    EXPECT_EQ(verdict.hint, "");
}

TEST(CompareTest, PrintsBothTensorsInPyTorchFormat) {
    const auto verdict = compare(float_tensor(weights * 2.0f), golden(weights));
    EXPECT_THAT(verdict.details, HasSubstr("got:\n    tensor([[0.4196, 0.4012, 0.3962],\n"
                                           "            [0.2770, 0.4758, 0.4666]])"));
    EXPECT_THAT(verdict.details, HasSubstr("expected:\n    tensor([[0.2098, 0.2006, 0.1981],"));
}

TEST(CompareTest, StatesAGoldensOwnToleranceFactorAndItsReason) {
    auto expected = golden(weights);
    expected.tolerance = tolerance::for_reduction(1, 4.0, "a fused kernel sums in another order");
    float_tensor off = weights;
    const auto plain = static_cast<float>(tolerance::for_reduction(1).allowed(weights(0, 0)));
    off(0, 0) += 3 * plain;  // 3x the plain tolerance, within 4x
    EXPECT_TRUE(compare(off, expected).passed);
    off(0, 0) += 3 * plain;
    const auto verdict = compare(off, expected);
    ASSERT_FALSE(verdict.passed);
    EXPECT_THAT(verdict.details, HasSubstr("times 4: a fused kernel sums in another order"));
}

// ---- names decided across the cases of a function (decide_names) -------------------------

// A failed comparison that names `mistake` (of family `family`), or none.
attn::kit::comparison failed_naming(const std::string& mistake = "",
                                    const std::string& family = "") {
    attn::kit::comparison verdict;
    verdict.reason = "30 of 36 values differ";
    verdict.mistake = mistake;
    verdict.hint = mistake.empty() ? "" : "the hint of " + mistake;
    verdict.mistake_id = verdict.mistake_family = family;
    return verdict;
}

const std::string wrong_axis = "softmax over the wrong axis (dim=1 instead of dim=0)";
const std::string transposed = "the result transposed";

TEST(DecideNamesTest, ANameAnotherCaseOfTheFunctionRulesOutIsTakenBack) {
    auto one_token = failed_naming(wrong_axis, "wrong_axis");
    auto notebook = failed_naming();
    const auto changed =
        attn::kit::decide_names({{"softmax_matrix", "softmax_matrix.one_token", &one_token},
                                 {"softmax_matrix", "softmax_matrix.notebook", &notebook}},
                                {{"softmax_matrix", wrong_axis}});
    EXPECT_EQ(changed, std::vector<const attn::kit::comparison*>{&one_token});
    EXPECT_EQ(one_token.mistake, "");
    EXPECT_EQ(one_token.taken_back, wrong_axis);
    // Ruled out for another function, the name stands.
    auto other = failed_naming(wrong_axis, "wrong_axis");
    EXPECT_TRUE(attn::kit::decide_names({{"softmax_rows", "softmax_rows.a", &other}},
                                        {{"softmax_matrix", wrong_axis}})
                    .empty());
    EXPECT_EQ(other.mistake, wrong_axis);
}

// A row-only softmax on symmetric scores gives the transpose, which is also the wrong axis:
// that case names neither (both are recorded, "ambiguous"), and says it is the slip its
// sibling of other scores names, not a second one.
TEST(DecideNamesTest, AResultTwoMistakesShareIsTheSameSlipAsTheSiblingThatNamesOne) {
    auto symmetric = failed_naming();
    symmetric.ambiguous_with = {transposed, wrong_axis};
    symmetric.diagnosis = "the result is transposed";
    auto sibling = failed_naming(wrong_axis, "wrong_axis");
    const auto changed = attn::kit::decide_names(
        {{"softmax_matrix", "softmax_matrix.cols_notebook", &symmetric},
         {"softmax_matrix", "softmax_matrix.cols_notebook_shape", &sibling}},
        {{"softmax_matrix", transposed}});  // the sibling's result is not the transpose
    EXPECT_EQ(changed, std::vector<const attn::kit::comparison*>{&symmetric});
    EXPECT_EQ(symmetric.mistake, "");  // named on the sibling, not here
    EXPECT_EQ(symmetric.same_slip_as, "softmax_matrix.cols_notebook_shape");
    EXPECT_EQ(symmetric.same_slip, wrong_axis);
    EXPECT_EQ(symmetric.mistake_family, "wrong_axis");
    EXPECT_EQ(symmetric.hint, sibling.hint);
    EXPECT_EQ(attn::kit::headline("softmax(scores, dim)", symmetric),
              "softmax(scores, dim): 30 of 36 values differ — the same slip as "
              "softmax_matrix.cols_notebook_shape (looks like: " +
                  wrong_axis + ")");
}

TEST(DecideNamesTest, OnlyAnotherCaseOfTheSameFunctionDecidesWhichSlip) {
    auto symmetric = failed_naming();
    symmetric.ambiguous_with = {transposed, wrong_axis};
    auto same_case = failed_naming(wrong_axis, "wrong_axis");  // another output of the case
    auto other_function = failed_naming(wrong_axis, "wrong_axis");
    attn::kit::decide_names({{"softmax_matrix", "softmax_matrix.cols_notebook", &symmetric},
                             {"softmax_matrix", "softmax_matrix.cols_notebook", &same_case},
                             {"softmax_rows", "softmax_rows.notebook", &other_function}},
                            {});
    EXPECT_EQ(symmetric.same_slip_as, "");
    EXPECT_EQ(symmetric.mistake_family, "");
}

TEST(ToleranceTest, GrowsItsRelativePartWithTheSquareRootOfTheReductionLength) {
    const auto one = tolerance::for_reduction(1);
    const auto hundred = tolerance::for_reduction(100);
    EXPECT_DOUBLE_EQ(hundred.atol, one.atol);  // a floor for values of scale ~0: no sum behind it
    EXPECT_DOUBLE_EQ(hundred.rtol, 10 * one.rtol);
    EXPECT_DOUBLE_EQ(one.allowed(2.0), 1e-6 + 16.0 / (1 << 24));  // atol + 8u * 2
}

TEST(ToleranceTest, IsTheWorstCaseErrorOfAFloat32SumUpTo64Terms) {
    const double u = 1.0 / (1 << 24);  // float32's unit roundoff
    for (const std::size_t n : {1, 6, 16, 64}) {
        EXPECT_GE(tolerance::for_reduction(n).rtol, static_cast<double>(n) * u) << n;
    }
}

}  // namespace
