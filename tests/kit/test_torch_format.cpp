// tests/kit/test_torch_format.cpp — the printer reproduces PyTorch's repr() byte for byte, for
// every print sample tools/record recorded with torch's own repr().
#include "kit/golden_store.hpp"
#include "kit/torch_format.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace {

using attn::kit::golden_store;

std::vector<std::string> sample_paths() {
    std::vector<std::string> paths;
    try {
        for (const auto* file : golden_store::instance().files("print_sample")) {
            paths.push_back(file->path);
        }
    } catch (const attn::kit::golden_error&) {
        // GoldenStoreTest reports an unreadable manifest.
    }
    return paths;
}

class TorchFormatTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TorchFormatTest, MatchesPyTorchRepr) {
    const golden_store& store = golden_store::instance();
    const auto& sample = store.file(GetParam());
    EXPECT_EQ(attn::kit::torch_repr(store.load(GetParam()), sample.print_precision), sample.repr);
}

INSTANTIATE_TEST_SUITE_P(Samples, TorchFormatTest, ::testing::ValuesIn(sample_paths()),
                         [](const auto& info) {
                             const auto& path = info.param;
                             return path.substr(path.rfind('/') + 1,
                                                path.size() - path.rfind('/') - 5);
                         });

// ---- exact integers in messages ----------------------------------------------------------

TEST(ExactIntegerTest, CountsArePrintedExactlyWithThousandsSeparators) {
    using attn::kit::exact_integer;
    EXPECT_EQ(exact_integer(2360064), "2,360,064");
    EXPECT_EQ(exact_integer(2362368), "2,362,368");  // %g would print both as 2.36e+06
    EXPECT_EQ(exact_integer(-1073741824), "-1,073,741,824");
    EXPECT_EQ(exact_integer(999), "999");
    EXPECT_EQ(exact_integer(-1000), "-1,000");
    EXPECT_EQ(exact_integer(0), "0");
    EXPECT_EQ(exact_integer(3221225472.0), "3,221,225,472");
}

TEST(ExactIntegerTest, ADifferenceSaysByHowMuchAndByWhatFactor) {
    using attn::kit::integer_difference;
    EXPECT_EQ(integer_difference(2360064, 2362368), "2,304 fewer than expected, ×0.999");
    EXPECT_EQ(integer_difference(3, 2), "1 more than expected, ×1.5");
    EXPECT_EQ(integer_difference(2362369, 2362368), "1 more than expected, ×1.0000004");
    // No factor across a sign change or from 0: it would say nothing.
    EXPECT_EQ(integer_difference(-1073741824, 3221225472.0), "4,294,967,296 fewer than expected");
    EXPECT_EQ(integer_difference(5, 0), "5 more than expected");
}

// An int64 tensor's values beyond 2^53 (exercise 19's init_seed inputs) print every digit: a
// double holds only 53 bits, and 4602695983308554213 would print as ...240.
TEST(TorchFormatIntegerTest, Int64ValuesBeyondADoublesDigitsPrintExactly) {
    const attn::kit::int_tensor seed = std::int64_t{4602695983308554213};
    EXPECT_EQ(attn::kit::torch_repr(seed), "tensor(" + std::to_string(seed()) + ")");
    const attn::kit::int_tensor pair = {std::int64_t{249349234239518138}, std::int64_t{-1}};
    EXPECT_EQ(attn::kit::torch_repr(pair), "tensor([249349234239518138,                 -1])");
}

}  // namespace
