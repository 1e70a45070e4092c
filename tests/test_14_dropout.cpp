// tests/test_14_dropout.cpp — Exercise 14: inverted dropout (ch03.ipynb In [31] and In [32]).
// Compiled once; linked against exercises/ and solutions/14_dropout.cpp. The cases, each with
// its recorded keep mask, are in reference_data/14_dropout/; the TESTs below check the
// properties on masks drawn here (std::mt19937, never PyTorch's pattern).
#include "attn/causal_attention.hpp"
#include "attn/errors.hpp"
#include "kit/testing.hpp"

#include <xtensor/xmath.hpp>

#include <cstddef>
#include <random>
#include <stdexcept>

using attn::kit::stub_line;

ATTN_CASE(dropout) {
    const auto x = the_case.input<2>("x");
    const auto keep = the_case.input<2>("keep");  // 1 keeps, 0 drops; x's shape
    const float p = the_case.input<0>("p")();
    const bool training = the_case.integer("training") != 0;
    ATTN_RESULT("dropped", attn::dropout(x, keep, p, training));
}

namespace {

// The values of a case (5 x 7 seeded randn) and a keep mask drawn for them here, with
// P(keep) = 1 - p: std::mt19937 with its default seed, never PyTorch's dropout pattern.
struct drawn {
    attn::Matrix x, keep;
};

drawn draw(float p) {
    drawn d{attn::kit::case_input<2>("14_dropout/odd_shape_p02", "x"), {}};
    d.keep = xt::zeros_like(d.x);
    std::mt19937 generator;
    std::bernoulli_distribution kept(1.0 - p);
    for (auto& k : d.keep) k = kept(generator) ? 1.0f : 0.0f;
    return d;
}

}  // namespace

TEST(DropoutTest, KeptValuesScaledByOneOverKeepProbabilityDroppedOnesZero) {
    const float p = 0.3f;
    const drawn d = draw(p);
    const attn::Matrix dropped = attn::dropout(d.x, d.keep, p);
    ASSERT_EQ(dropped.shape(), d.x.shape());
    for (std::size_t i = 0; i < d.x.shape(0); ++i) {
        for (std::size_t j = 0; j < d.x.shape(1); ++j) {
            SCOPED_TRACE(::testing::Message()
                         << "at [" << i << ", " << j << "], keep " << d.keep(i, j));
            if (d.keep(i, j) == 0.0f) {
                EXPECT_EQ(dropped(i, j), 0.0f);
            } else {
                EXPECT_FLOAT_EQ(dropped(i, j), d.x(i, j) / (1.0f - p));
            }
        }
    }
}

TEST(DropoutTest, IdentityAtPZero) {
    const drawn d = draw(0.0f);  // p = 0 keeps every entry
    EXPECT_TRUE(attn::dropout(d.x, d.keep, 0.0f) == d.x)
        << "dropout with p = 0 must return x unchanged";
}

TEST(DropoutTest, IdentityInEvalMode) {
    const drawn d = draw(0.5f);
    EXPECT_TRUE(attn::dropout(d.x, d.keep, 0.5f, /*training=*/false) == d.x)
        << "in eval mode (training = false) dropout returns x unchanged";
}

TEST(DropoutTest, EverythingDroppedAtPOne) {
    const drawn d = draw(1.0f);  // p = 1 keeps nothing
    EXPECT_TRUE(attn::dropout(d.x, d.keep, 1.0f) == xt::zeros_like(d.x))
        << "p = 1 drops every entry: all zeros (and no 0 / 0 = nan)";
}

// The point of the 1 / (1 - p): on average an entry keeps its value. Over n = 1225 ones the
// mean of dropout has the standard deviation sqrt(p / ((1 - p) n)) = 0.014 for p = 0.2, so
// 0.1 is 7 of them.
TEST(DropoutTest, KeepsTheMeanOfOnesOnAverage) {
    const float p = 0.2f;
    const drawn d = draw(p);
    const std::size_t n = d.x.size();
    const attn::Matrix ones = xt::ones<float>({n, n});
    std::mt19937 generator;
    std::bernoulli_distribution kept(1.0 - p);
    attn::Matrix keep = xt::zeros_like(ones);
    for (auto& k : keep) k = kept(generator) ? 1.0f : 0.0f;
    const float mean = xt::mean(attn::dropout(ones, keep, p))();
    EXPECT_NEAR(mean, 1.0f, 0.1f) << "the mean of dropout(ones) stays 1";
}

TEST(DropoutTest, RejectsKeepOfAnotherShape) {
    const drawn d = draw(0.5f);
    const attn::Matrix transposed = xt::transpose(d.keep);
    ATTN_EXPECT_REJECTS(attn::dropout(d.x, d.keep, 0.5f), attn::dropout(d.x, transposed, 0.5f),
                        "keep transposed, shape " + attn::shape_string(transposed.shape()) +
                            ", x of " + attn::shape_string(d.x.shape()),
                        attn::shape_error, "keep has shape (7, 5)",
                        stub_line("arguments::dropout("));
}

TEST(DropoutTest, RejectsPOutsideZeroToOne) {
    const drawn d = draw(0.5f);
    ATTN_EXPECT_REJECTS(attn::dropout(d.x, d.keep, 0.5f), attn::dropout(d.x, d.keep, -0.1f),
                        "p = -0.1", std::invalid_argument, "is not a probability",
                        stub_line("arguments::dropout("));
    ATTN_EXPECT_REJECTS(attn::dropout(d.x, d.keep, 0.5f), attn::dropout(d.x, d.keep, 1.5f),
                        "p = 1.5", std::invalid_argument, "is not a probability",
                        stub_line("arguments::dropout("));
}

TEST(DropoutTest, RejectsKeepValuesOtherThanZeroOrOne) {
    const drawn d = draw(0.5f);
    const attn::Matrix halves = xt::ones_like(d.x) * 0.5f;
    ATTN_EXPECT_REJECTS(attn::dropout(d.x, d.keep, 0.5f), attn::dropout(d.x, halves, 0.5f),
                        "a keep mask of 0.5s", std::invalid_argument, "other than 0 or 1",
                        stub_line("arguments::dropout("));
}
