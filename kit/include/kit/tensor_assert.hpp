// kit/tensor_assert.hpp — tensor comparisons whose failures explain the mistake.
//
//   EXPECT_TENSOR_MATCHES(attn::softmax(scores, -1), "03_softmax/attn_weights");
//
// compares a result with a golden tensor under the kit's tolerance rule (kit/tolerance.hpp,
// scaled by the golden's recorded reduction length). On a mismatch the failure's first line
// says what is wrong in one sentence, naming a known mistake when the result equals one the
// recorder recorded; the lines after it give the shapes, the worst element by index, the
// first mismatches, the tolerance, and both tensors in PyTorch's print format.
#pragma once

#include "kit/golden.hpp"
#include "kit/student_code.hpp"
#include "kit/tolerance.hpp"

#include <gtest/gtest.h>
#include <xtensor/xarray.hpp>

#include <string>
#include <vector>

namespace attn::kit {

// The comparison itself, for tests of the kit: `what` names the result in the message.
::testing::AssertionResult tensors_match(const std::string& what, const xt::xarray<float>& actual,
                                         const xt::xarray<float>& expected,
                                         const Tolerance& tolerance,
                                         const std::vector<KnownMistake>& mistakes = {});

// Predicate-formatter behind EXPECT_TENSOR_MATCHES: loads the golden (integrity-checked),
// its tolerance and its recorded mistakes from the manifest.
::testing::AssertionResult tensor_matches_golden(const char* actual_expression,
                                                 const char* golden_expression,
                                                 const xt::xarray<float>& actual,
                                                 const std::string& golden_name);

// Predicate-formatter behind EXPECT_RESULT_MATCHES: as tensor_matches_golden, naming `call`.
::testing::AssertionResult result_matches_golden(const char*, const char*, const char*,
                                                 const char* call, const xt::xarray<float>& result,
                                                 const std::string& golden_name);

}  // namespace attn::kit

// The usual test in one line: runs the code under test (a throw ends the test with the
// exception's one line, as RUN_STUDENT_CODE does) and compares its result with a golden,
// naming the call in the failure:
//   EXPECT_RESULT_MATCHES(attn::softmax(scores), "03_softmax/attention_weights_2");
#define EXPECT_RESULT_MATCHES(call, golden_name)                                         \
    do {                                                                                 \
        xt::xarray<float> attn_kit_result_;                                              \
        RUN_STUDENT_CODE(attn_kit_result_ = (call));                                     \
        EXPECT_PRED_FORMAT3(::attn::kit::result_matches_golden, #call, attn_kit_result_, \
                            golden_name);                                                \
    } while (false)

#define EXPECT_TENSOR_MATCHES(actual, golden_name) \
    EXPECT_PRED_FORMAT2(::attn::kit::tensor_matches_golden, actual, golden_name)
#define ASSERT_TENSOR_MATCHES(actual, golden_name) \
    ASSERT_PRED_FORMAT2(::attn::kit::tensor_matches_golden, actual, golden_name)
