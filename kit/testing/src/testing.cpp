// kit/testing/src/testing.cpp — cases as GoogleTest tests.
#include "kit/testing.hpp"

namespace attn::kit {

::testing::AssertionResult result_matches(const std::string& call, const any_tensor& result,
                                          const expected_golden& expected) {
    const comparison verdict = compare(result, expected);
    if (verdict.passed) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << explain(call, expected, verdict);
}

}  // namespace attn::kit
