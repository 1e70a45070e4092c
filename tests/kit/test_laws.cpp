// tests/kit/test_laws.cpp — the laws beside the goldens (kit/laws.hpp): each broken law is
// a named failure, and a hard-coded answer (the goldens written as results) breaks every law
// in the judge, with the law's sentence and nothing of the expected tensor in it.
#include "kit/judge.hpp"
#include "kit/laws.hpp"
#include "kit/npy.hpp"

#include <gmock/gmock.h>
#include <xtensor/xview.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using attn::kit::any_tensor;
using attn::kit::case_law;
using attn::kit::check_law;
using attn::kit::expected_golden;
using attn::kit::float_tensor;
using attn::kit::golden_store;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const case_law causal_law{"causal", {"x"}, 1, "context", 1};
const case_law batch_law{"batch", {"x"}, 0, "context", 0};
const case_law heads_law{"heads", {"queries", "keys", "values"}, 1, "context", 1};

// A golden of `tensor`'s shape whose scale is 1 everywhere (a tolerance of about 1e-6).
expected_golden golden_like(const float_tensor& tensor) {
    expected_golden golden;
    golden.path = "xx_test/case/context.npy";
    golden.tensor = tensor;
    golden.scale = xt::ones<float>(tensor.shape());
    golden.tolerance = attn::kit::tolerance::for_reduction(4);
    return golden;
}

// (B=2, T=4, d=2): value b*100 + t*10 + k.
float_tensor batch_of_tokens() {
    float_tensor x = xt::zeros<float>({2, 4, 2});
    for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t t = 0; t < 4; ++t)
            for (std::size_t k = 0; k < 2; ++k) x(b, t, k) = 100.0f * b + 10.0f * t + k;
    return x;
}

// A causal "attention": each token's output is the running mean of the tokens up to it.
float_tensor running_mean(const float_tensor& x, bool leak = false) {
    float_tensor out = xt::zeros<float>(x.shape());
    const std::size_t T = x.shape(1);
    for (std::size_t b = 0; b < x.shape(0); ++b)
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t k = 0; k < x.shape(2); ++k) {
                const std::size_t last = leak ? T - 1 : t;
                float sum = 0;
                for (std::size_t s = 0; s <= last; ++s) sum += x(b, s, k);
                out(b, t, k) = sum / static_cast<float>(last + 1);
            }
    return out;
}

TEST(LawsTest, TheCausalVariantCopiesTheFirstTokensOverTheLaterOnes) {
    const float_tensor x = batch_of_tokens();
    const float_tensor changed = attn::kit::law_input(causal_law, x);
    ASSERT_EQ(changed.shape(), x.shape());
    EXPECT_EQ(changed(1, 0, 1), x(1, 0, 1));
    EXPECT_EQ(changed(1, 1, 0), x(1, 1, 0));
    EXPECT_EQ(changed(1, 2, 1), x(1, 0, 1));  // j = T/2 = 2: token 2 gets token 0
    EXPECT_EQ(changed(0, 3, 0), x(0, 1, 0));
}

TEST(LawsTest, TheBatchVariantIsTheLastSequenceAlone) {
    const float_tensor x = batch_of_tokens();
    const float_tensor alone = attn::kit::law_input(batch_law, x);
    ASSERT_EQ(alone.shape(), (std::vector<std::size_t>{1, 4, 2}));
    EXPECT_EQ(alone(0, 3, 1), x(1, 3, 1));
    EXPECT_TRUE(attn::kit::law_changes(heads_law, "keys"));
    EXPECT_FALSE(attn::kit::law_changes(batch_law, "W_query.weight"));
    EXPECT_EQ(attn::kit::law_output_name(heads_law), "law.heads.context");
}

TEST(LawsTest, ACausalComputationKeepsTheLaw) {
    const float_tensor x = batch_of_tokens();
    const float_tensor base = running_mean(x);
    const auto verdict = check_law(
        causal_law, base, running_mean(attn::kit::law_input(causal_law, x)), golden_like(base));
    EXPECT_TRUE(verdict.passed) << verdict.reason;
}

TEST(LawsTest, AnOutputThatSeesTheFutureBreaksTheCausalLaw) {
    const float_tensor x = batch_of_tokens();
    const float_tensor base = running_mean(x, true);
    const auto verdict =
        check_law(causal_law, base, running_mean(attn::kit::law_input(causal_law, x), true),
                  golden_like(base));
    EXPECT_FALSE(verdict.passed);
    EXPECT_THAT(verdict.reason, StartsWith("the output of token 0 changed when tokens "
                                           "2.. of x changed (context[0, 0, 0]: "));
    EXPECT_THAT(verdict.reason, HasSubstr("the future leaks in"));
    EXPECT_THAT(verdict.details,
                HasSubstr("how it was checked: the case ran again with tokens 2.."));
}

TEST(LawsTest, AnOutputThatIgnoresItsInputBreaksTheCausalLaw) {
    const float_tensor base = running_mean(batch_of_tokens());
    const auto verdict = check_law(causal_law, base, base, golden_like(base));
    EXPECT_FALSE(verdict.passed);
    EXPECT_THAT(verdict.reason, HasSubstr("did not change when tokens 2.. of x changed"));
}

TEST(LawsTest, NanEverywhereIsLeftToTheComparisonOfValues) {
    // scores + mask * -inf: 0 * -inf is nan in every output, which "does not change"
    const float_tensor base = xt::zeros<float>({2, 4, 2}) * std::nanf("");
    const auto verdict =
        check_law(causal_law, base, base, golden_like(running_mean(batch_of_tokens())));
    EXPECT_TRUE(verdict.passed) << verdict.reason;
}

TEST(LawsTest, ALeakAmongNanRowsIsStillNamed) {
    // a mask read the wrong way round: the last token sees nothing (nan), token 0 the future
    const float_tensor x = batch_of_tokens();
    float_tensor base = running_mean(x, true),
                 variant = running_mean(attn::kit::law_input(causal_law, x), true);
    xt::view(base, xt::all(), 3, xt::all()) = std::nanf("");
    xt::view(variant, xt::all(), 3, xt::all()) = std::nanf("");
    const auto verdict = check_law(causal_law, base, variant, golden_like(running_mean(x)));
    EXPECT_FALSE(verdict.passed);
    EXPECT_THAT(verdict.reason, HasSubstr("the future leaks in"));
}

TEST(LawsTest, ADifferenceWithinTheToleranceKeepsTheLaw) {
    const float_tensor x = batch_of_tokens();
    const float_tensor base = running_mean(x);
    float_tensor variant = running_mean(attn::kit::law_input(causal_law, x));
    variant(0, 0, 0) += 1e-6f;  // within 1e-6 + 8u * 2 * 1
    EXPECT_TRUE(check_law(causal_law, base, variant, golden_like(base)).passed);
    variant(0, 1, 0) += 1e-3f;
    EXPECT_THAT(check_law(causal_law, base, variant, golden_like(base)).reason,
                HasSubstr("the output of token 1 changed"));
}

TEST(LawsTest, TheOrderVariantReversesTheTokens) {
    const case_law order_law{"order", {"x"}, 1, "context", 1};
    const float_tensor x = batch_of_tokens();
    const float_tensor reversed = attn::kit::law_input(order_law, x);
    EXPECT_EQ(reversed(1, 0, 1), x(1, 3, 1));
    EXPECT_EQ(reversed(0, 2, 0), x(0, 1, 0));
    // A computation token by token keeps the law; the same output again breaks it.
    EXPECT_TRUE(check_law(order_law, x, reversed, golden_like(x)).passed);
    const auto verdict = check_law(order_law, x, x, golden_like(x));
    EXPECT_THAT(verdict.reason, StartsWith("with the tokens of x in reverse order, "
                                           "token 0's output changed (context[0, 0, 0]: 0, then "
                                           "30 at [0, 3, 0]): a token's output depends on where "
                                           "it stands"));
    // A running mean (a causal computation) is not the same tokens in another order.
    EXPECT_FALSE(
        check_law(order_law, running_mean(x), running_mean(reversed), golden_like(x)).passed);
}

TEST(LawsTest, SequencesThatMixBreakTheBatchLaw) {
    const float_tensor x = batch_of_tokens();
    float_tensor base = x;  // a sum over the batch: sequence 1's output adds sequence 0's
    for (std::size_t i = 0; i < 8; ++i) base.data()[8 + i] += x.data()[i];
    const float_tensor alone = attn::kit::law_input(batch_law, x);
    const auto verdict = check_law(batch_law, base, alone, golden_like(base));
    EXPECT_FALSE(verdict.passed);
    EXPECT_THAT(verdict.reason, StartsWith("sequence 1's output changed when it ran "
                                           "alone (context[1, 0, 1]: 102 in the batch, 101 "
                                           "alone)"));
    EXPECT_THAT(verdict.reason, HasSubstr("sequences of the batch mix"));
    // Each sequence on its own: the law holds.
    EXPECT_TRUE(check_law(batch_law, x, alone, golden_like(x)).passed);
}

TEST(LawsTest, AResultOfAFixedBatchSizeBreaksTheBatchLaw) {
    const float_tensor x = batch_of_tokens();
    const auto verdict = check_law(batch_law, x, x, golden_like(x));
    EXPECT_THAT(verdict.reason, HasSubstr("sequence 1 ran alone and gave context of shape "
                                          "(2, 4, 2), not (1, 4, 2)"));
}

TEST(LawsTest, HeadsThatMixBreakTheHeadsLaw) {
    float_tensor heads = xt::ones<float>({1, 3, 2, 2});
    float_tensor alone = xt::ones<float>({1, 1, 2, 2});
    alone(0, 0, 1, 1) = 2;
    const auto verdict = check_law(heads_law, heads, alone, golden_like(heads));
    EXPECT_THAT(verdict.reason, StartsWith("head 2's output changed when it ran alone "
                                           "(context[0, 2, 1, 1]: 1 with every head, 2 alone): "
                                           "heads mix"));
}

TEST(LawsTest, AResultOfAnotherShapeThanTheGoldenIsLeftToItsComparison) {
    const float_tensor x = batch_of_tokens();
    EXPECT_TRUE(check_law(causal_law, x, x, golden_like(xt::zeros<float>({2, 4, 3}))).passed);
}

// ---- the judge, on every case of the kit's case set that has laws ------------------------

class LawJudgeTest : public ::testing::Test {
protected:
    void SetUp() override {
        results_ = fs::current_path() /
                   ("laws-" +
                    std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(results_);
    }
    void TearDown() override { fs::remove_all(results_); }

    static const golden_store& store() { return golden_store::instance(); }

    // The cases with laws, each with its goldens written as its own results (a hard-coded
    // answer passes them all), and `law_output(entry, law)` written as each law's result
    // (nothing where it gives none).
    template <class LawOutput>
    std::vector<const attn::kit::case_entry*> hard_coded(LawOutput law_output) const {
        std::vector<const attn::kit::case_entry*> cases;
        for (const auto* entry : store().cases()) {
            if (entry->laws.empty()) continue;
            cases.push_back(entry);
            for (const auto& output : entry->expected) {
                attn::kit::write_npy(results_ / entry->file(output),
                                     store().load(entry->file(output)));
            }
            for (const auto& law : entry->laws) {
                const std::optional<any_tensor> value = law_output(*entry, law);
                if (value) {
                    attn::kit::write_npy(
                        results_ / entry->path / (attn::kit::law_output_name(law) + ".npy"),
                        *value);
                }
            }
        }
        return cases;
    }

    // Each law's verdict on `entry`, in the order of its laws; the outputs themselves pass.
    std::vector<attn::kit::comparison> law_verdicts(
        const attn::kit::case_entry& entry,
        attn::kit::expected_values shown = attn::kit::expected_values::shown) const {
        const auto verdict =
            attn::kit::judge_case(store(), entry, attn::kit::result_folder(results_), shown);
        std::vector<attn::kit::comparison> laws;
        for (const auto& [name, compared] : verdict.outputs) {
            if (name.rfind("law.", 0) == 0) {
                laws.push_back(compared);
            } else {
                EXPECT_TRUE(compared.passed)
                    << entry.path << " " << name << ": " << compared.reason;
            }
        }
        EXPECT_EQ(laws.size(), entry.laws.size()) << entry.path;
        EXPECT_FALSE(verdict.passed) << entry.path;
        return laws;
    }

    fs::path results_;
};

TEST_F(LawJudgeTest, TheCaseSetHasLawsOnEveryAttentionExercise) {
    std::set<std::string> with_laws;
    for (const auto* entry : store().cases()) {
        for (const auto& law : entry->laws) with_laws.insert(entry->exercise + " " + law.name);
    }
    for (const char* exercise : {"12", "13", "15", "16", "17", "19", "20", "23"}) {
        EXPECT_EQ(with_laws.count(std::string(exercise) + " causal"), 1u) << exercise;
    }
    for (const char* exercise : {"15", "16", "17", "18", "19", "20", "23"}) {
        EXPECT_EQ(with_laws.count(std::string(exercise) + " batch"), 1u) << exercise;
    }
    EXPECT_EQ(with_laws.count("23 heads"), 1u);
    for (const char* exercise :
         {"01", "02", "03", "05", "06", "07", "08", "09", "10", "11", "18", "21"}) {
        EXPECT_EQ(with_laws.count(std::string(exercise) + " order"), 1u) << exercise;
    }
}

// The goldens again as every law's result: the answer of a table keyed on the shape.
TEST_F(LawJudgeTest, TheGoldensAgainBreakEveryLaw) {
    const auto cases = hard_coded([](const attn::kit::case_entry& entry, const case_law& law) {
        return std::optional<any_tensor>(store().load(entry.file(law.output)));
    });
    ASSERT_FALSE(cases.empty());
    for (const auto* entry : cases) {
        const auto laws = law_verdicts(*entry);
        for (std::size_t i = 0; i < laws.size(); ++i) {
            EXPECT_FALSE(laws[i].passed) << entry->path;
            EXPECT_THAT(laws[i].reason,
                        HasSubstr(entry->laws[i].name == "causal"  ? "did not change when tokens"
                                  : entry->laws[i].name == "order" ? "in reverse order, token"
                                                                   : "ran alone and gave"))
                << entry->path;
        }
    }
}

// Zeros of the variant's shape as every law's result.
TEST_F(LawJudgeTest, ZerosBreakEveryLaw) {
    const auto cases = hard_coded([](const attn::kit::case_entry& entry, const case_law& law) {
        auto shape = store().file(entry.file(law.output)).shape;
        if (law.name == "batch" || law.name == "heads") shape[law.output_axis] = 1;
        return std::optional<any_tensor>(float_tensor(xt::zeros<float>(shape)));
    });
    for (const auto* entry : cases) {
        const auto laws = law_verdicts(*entry, attn::kit::expected_values::withheld);
        for (std::size_t i = 0; i < laws.size(); ++i) {
            EXPECT_FALSE(laws[i].passed) << entry->path;
            EXPECT_THAT(
                laws[i].reason,
                HasSubstr(entry->laws[i].name == "causal"  ? "the future leaks in"
                          : entry->laws[i].name == "order" ? "depends on where it stands"
                                                           : "output changed when it ran alone"))
                << entry->path;
            // A hidden case: the sentence compares the student's two results, nothing else.
            EXPECT_THAT(laws[i].reason, Not(HasSubstr("expected"))) << entry->path;
            EXPECT_EQ(laws[i].details, "") << entry->path;
        }
    }
}

TEST_F(LawJudgeTest, AMissingLawResultFailsAndAThrowIsReported) {
    const auto cases = hard_coded(
        [](const attn::kit::case_entry&, const case_law&) { return std::optional<any_tensor>(); });
    const auto* entry = cases.at(0);
    for (const auto& law : entry->laws) {
        EXPECT_THAT(law_verdicts(*entry).at(0).reason,
                    HasSubstr("not checked: the second run, where "))
            << entry->path;
        std::ofstream(results_ / entry->path / ("law." + law.name + ".error.txt"))
            << "exercises/12_x.cpp: attn::f(weights) threw std::out_of_range\n";
    }
    EXPECT_THAT(law_verdicts(*entry).at(0).reason, StartsWith("the call threw when "));
    EXPECT_THAT(law_verdicts(*entry).at(0).reason, HasSubstr("threw std::out_of_range"));
}

TEST_F(LawJudgeTest, ALinkAsALawResultIsRefused) {
    const auto cases = hard_coded(
        [](const attn::kit::case_entry&, const case_law&) { return std::optional<any_tensor>(); });
    const auto* entry = cases.at(0);
    const auto& law = entry->laws.at(0);
    fs::create_symlink(store().root() / entry->file(law.output),
                       results_ / entry->path / (attn::kit::law_output_name(law) + ".npy"));
    EXPECT_THAT(law_verdicts(*entry).at(0).reason, HasSubstr("is not a plain file"));
}

}  // namespace
