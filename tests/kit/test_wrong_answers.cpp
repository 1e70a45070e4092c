// tests/kit/test_wrong_answers.cpp — every exercise's assertions reject plausible wrong answers.
//
// For each expected golden in MANIFEST.json: each recorded mistake must fail the golden's
// assertion *and* be diagnosed by its name; the golden with one element off by 1e-3, with a
// NaN, or with a wrong shape must fail too. Test names start with the exercise id
// (".../ex03_attn_weights_wrong_axis"), so ctest runs them per exercise.
#include "kit/golden.hpp"
#include "kit/tensor_assert.hpp"

#include <gmock/gmock.h>
#include <xtensor/xview.hpp>

#include <cmath>
#include <iostream>
#include <limits>

namespace {

using attn::kit::GoldenEntry;
using attn::kit::GoldenStore;
using attn::kit::Tolerance;

struct WrongAnswer {
    std::string test_name;     // "ex03_attn_weights_wrong_axis"
    std::string golden;        // "03_softmax/attn_weights.npy"
    std::string mistake_path;  // empty for the perturbations
    std::string perturbation;  // "off_by_1e-3", "nan" or "wrong_shape"
};

// Shown in test listings instead of the struct's bytes.
void PrintTo(const WrongAnswer& wrong, std::ostream* out) {
    *out << (wrong.mistake_path.empty() ? wrong.perturbation : wrong.mistake_path) << " vs "
         << wrong.golden;
}

std::string identifier(std::string text) {
    for (char& c : text) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    return text;
}

std::string stem(const std::string& path) {
    const auto slash = path.rfind('/');
    const auto dot = path.rfind(".npy");
    return path.substr(slash + 1, dot - slash - 1);
}

std::vector<WrongAnswer> all_wrong_answers() {
    std::vector<WrongAnswer> cases;
    try {
        for (const GoldenEntry* golden : GoldenStore::instance().entries("expected")) {
            const std::string prefix = "ex" + golden->exercise + "_" + stem(golden->path) + "_";
            for (const auto& mistake : golden->mistakes) {
                const std::string name = stem(mistake);  // "attn_weights.wrong_axis"
                cases.push_back({identifier(prefix + name.substr(name.rfind('.') + 1)),
                                 golden->path, mistake, ""});
            }
            for (const char* perturbation : {"off_by_1e-3", "nan", "wrong_shape"}) {
                cases.push_back(
                    {identifier(prefix + perturbation), golden->path, "", perturbation});
            }
        }
    } catch (const attn::kit::golden_error& error) {
        // No cases: ctest counts a run of zero tests as a failure; say why.
        std::cerr << error.what() << '\n';
    }
    return cases;
}

xt::xarray<float> perturbed(xt::xarray<float> tensor, const std::string& perturbation) {
    if (perturbation == "wrong_shape") return xt::zeros<float>({tensor.size() + 1});
    const float value = tensor.data()[0];
    tensor.data()[0] =
        perturbation == "nan" ? std::numeric_limits<float>::quiet_NaN() : value + 1e-3f;
    return tensor;
}

class WrongAnswerTest : public ::testing::TestWithParam<WrongAnswer> {};

TEST_P(WrongAnswerTest, IsRejected) {
    const WrongAnswer& wrong = GetParam();
    const GoldenStore& store = GoldenStore::instance();
    const GoldenEntry& golden = store.entry(wrong.golden);
    const auto expected = store.load(wrong.golden);
    const auto answer = wrong.mistake_path.empty() ? perturbed(expected, wrong.perturbation)
                                                   : store.load(wrong.mistake_path);

    const auto verdict = attn::kit::tensors_match("answer", answer, expected,
                                                  Tolerance::for_reduction(golden.reduction),
                                                  store.mistakes_of(golden));
    ASSERT_FALSE(verdict) << "the assertion for " << wrong.golden << " accepted "
                          << (wrong.mistake_path.empty() ? wrong.perturbation : wrong.mistake_path);
    if (!wrong.mistake_path.empty()) {
        EXPECT_THAT(
            verdict.message(),
            ::testing::HasSubstr("looks like: " + store.entry(wrong.mistake_path).mistake_name))
            << "the recorded mistake was rejected but not diagnosed by name";
    }
}

INSTANTIATE_TEST_SUITE_P(Goldens, WrongAnswerTest, ::testing::ValuesIn(all_wrong_answers()),
                         [](const auto& info) { return info.param.test_name; });

}  // namespace
