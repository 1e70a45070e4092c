// tests/kit/test_known_mistakes.cpp — every golden rejects plausible wrong answers, names the
// recorded ones, and the judge agrees with the in-process assertion on each.
//
// For each expected golden of each case in MANIFEST.json:
//   - each recorded mistake fails the assertion and is diagnosed by its name, unless another
//     mistake gives the same tensor on that case ("ambiguous"): then it is named by neither;
//   - the golden moved by 2x each element's allowed error, with a NaN, or with a wrong shape
//     fails; moved by 0.5x it passes (the tolerance is neither loose nor tight);
//   - the judge, reading the same answer from a result folder as the runner writes it, gives
//     the same verdict and names the same mistake.
// Test names start with the exercise id ("ex03_rows_notebook_weights_wrong_axis"), so ctest
// runs them per exercise (exNN.wrong_answers_rejected).
#include "kit/judge.hpp"
#include "kit/npy.hpp"
#include "kit/testing.hpp"

#include <gmock/gmock.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>

namespace {

namespace fs = std::filesystem;
using attn::kit::any_tensor;
using attn::kit::expected_golden;
using attn::kit::golden_store;

struct wrong_answer {
    std::string test_name;     // "ex03_rows_notebook_weights_wrong_axis"
    std::string case_path;     // "03_softmax/rows_notebook"
    std::string output;        // "weights"
    std::string mistake;       // path of a recorded mistake, or empty for a perturbation
    std::string perturbation;  // "twice_allowed", "half_allowed", "nan", "finite_value",
                               // "changed_value" or "wrong_shape"
};

// Shown in test listings instead of the struct's bytes.
void PrintTo(const wrong_answer& wrong, std::ostream* out) {
    *out << (wrong.mistake.empty() ? wrong.perturbation : wrong.mistake) << " vs "
         << wrong.case_path << "/" << wrong.output;
}

std::string identifier(std::string text) {
    for (char& c : text) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    return text;
}

// Moving a value by its tolerance needs a finite value to move ([nan, nan] is a golden too:
// the naive softmax of [1000, 1001]); a golden with none is checked by a value put in.
std::vector<const char*> perturbations(const any_tensor& golden) {
    const auto values = attn::kit::values_of(golden);
    const bool any_finite =
        std::any_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
    if (golden.index() != 0) return {"changed_value", "wrong_shape"};  // int64, bool: exact
    if (!any_finite) return {"finite_value", "wrong_shape"};
    return {"twice_allowed", "half_allowed", "nan", "wrong_shape"};
}

std::vector<wrong_answer> all_wrong_answers() {
    std::vector<wrong_answer> answers;
    try {
        const golden_store& store = golden_store::instance();
        for (const auto* entry : store.cases()) {
            for (const auto& output : entry->expected) {
                const std::string prefix =
                    "ex" + entry->exercise + "_" + entry->name() + "_" + output + "_";
                for (const auto& mistake : store.file(entry->file(output)).mistakes) {
                    const auto stem = fs::path(mistake).stem().string();  // "weights.wrong_axis"
                    answers.push_back({identifier(prefix + stem.substr(stem.find('.') + 1)),
                                       entry->path, output, mistake, ""});
                }
                for (const char* perturbation : perturbations(store.load(entry->file(output)))) {
                    answers.push_back(
                        {identifier(prefix + perturbation), entry->path, output, "", perturbation});
                }
            }
        }
    } catch (const attn::kit::golden_error& error) {
        // No cases: ctest counts a run of zero tests as a failure; say why.
        std::cerr << error.what() << '\n';
    }
    return answers;
}

// The golden with every element moved by `times` its allowed error (exact dtypes: by 1).
// A nan or an infinity stays as it is: it has no tolerance to move by (exercise 13's masked
// scores are -inf above the diagonal, and -inf + allowed is nan).
any_tensor moved(const expected_golden& golden, double times) {
    if (const auto* values = std::get_if<attn::kit::float_tensor>(&golden.tensor)) {
        attn::kit::float_tensor result = *values;
        for (std::size_t i = 0; i < result.size(); ++i) {
            if (!std::isfinite(result.data()[i])) continue;
            const double allowed = golden.tolerance.allowed(golden.scale.data()[i]);
            result.data()[i] = static_cast<float>(result.data()[i] + times * allowed);
        }
        return result;
    }
    if (const auto* values = std::get_if<attn::kit::int_tensor>(&golden.tensor)) {
        return attn::kit::int_tensor(*values + std::int64_t{1});
    }
    return attn::kit::bool_tensor(!std::get<attn::kit::bool_tensor>(golden.tensor));
}

any_tensor answer_for(const wrong_answer& wrong, const expected_golden& golden) {
    const golden_store& store = golden_store::instance();
    if (!wrong.mistake.empty()) return store.load(wrong.mistake);
    if (wrong.perturbation == "twice_allowed" || wrong.perturbation == "changed_value") {
        return moved(golden, 2.0);
    }
    if (wrong.perturbation == "half_allowed") return moved(golden, 0.5);
    if (wrong.perturbation == "wrong_shape") {
        return attn::kit::float_tensor(
            xt::zeros<float>({attn::kit::values_of(golden.tensor).size() + 1}));
    }
    attn::kit::float_tensor changed = std::get<attn::kit::float_tensor>(golden.tensor);
    changed.data()[0] =
        wrong.perturbation == "nan" ? std::numeric_limits<float>::quiet_NaN() : 0.0f;
    return changed;
}

// The judge's verdict on `answer` as the case's output `wrong.output`, the other outputs
// of the case being their expected tensors, written where a runner would write them.
attn::kit::comparison judged(const wrong_answer& wrong, const any_tensor& answer) {
    const golden_store& store = golden_store::instance();
    const auto& entry = store.find_case(wrong.case_path);
    const auto results = fs::current_path() / ("judged-" + wrong.test_name);
    fs::remove_all(results);
    for (const auto& output : entry.expected) {
        attn::kit::write_npy(results / entry.file(output),
                             output == wrong.output ? answer : store.load(entry.file(output)));
    }
    attn::kit::comparison verdict;
    for (const auto& [name, output_verdict] :
         attn::kit::judge_case(store, entry, attn::kit::result_folder(results)).outputs) {
        if (name == wrong.output) verdict = output_verdict;
    }
    fs::remove_all(results);
    return verdict;
}

class KnownMistakesTest : public ::testing::TestWithParam<wrong_answer> {};

TEST_P(KnownMistakesTest, IsJudgedAlikeInProcessAndByTheJudge) {
    const wrong_answer& wrong = GetParam();
    const golden_store& store = golden_store::instance();
    const auto golden = store.expected(store.find_case(wrong.case_path).file(wrong.output));
    const any_tensor answer = answer_for(wrong, golden);

    const auto in_process = attn::kit::result_matches("answer", answer, golden);
    const auto by_judge = judged(wrong, answer);
    EXPECT_EQ(static_cast<bool>(in_process), by_judge.passed) << "the judge disagrees";

    if (wrong.perturbation == "half_allowed") {
        EXPECT_TRUE(in_process) << "an answer within half its tolerance must pass";
        return;
    }
    ASSERT_FALSE(in_process) << golden.path << " accepted " << ::testing::PrintToString(wrong);
    if (!wrong.mistake.empty() && store.file(wrong.mistake).mistake_ambiguous) {
        // Another mistake gives the same tensor here: naming either would be a guess.
        EXPECT_THAT(in_process.message(), ::testing::Not(::testing::HasSubstr("looks like: ")))
            << "a mistake another one gives the same tensor for was named";
        EXPECT_EQ(by_judge.mistake, "") << "the judge named an ambiguous mistake";
    } else if (!wrong.mistake.empty()) {
        const auto& name = store.file(wrong.mistake).mistake_name;
        // On the failure's first line, which `tools/kit check` shows on top and status shows
        // alone: whatever the tensors' size, the student's first screen names the mistake.
        const std::string message = in_process.message();
        EXPECT_THAT(message.substr(0, message.find('\n')),
                    ::testing::HasSubstr("looks like: " + name))
            << "the recorded mistake was rejected but not named on the failure's first line";
        EXPECT_EQ(by_judge.mistake, name) << "the judge named another mistake";
    }
}

// A name is a claim: no two mistakes a golden can name give the same tensor on its case (where
// they do, tools/record keeps one, marked ambiguous, and the judge names neither).
TEST(KnownMistakesTest, NoTwoNamedMistakesOfAGoldenGiveTheSameTensor) {
    const golden_store& store = golden_store::instance();
    for (const auto* entry : store.cases()) {
        for (const auto& output : entry->expected) {
            const expected_golden golden = store.expected(entry->file(output));
            for (std::size_t i = 0; i < golden.mistakes.size(); ++i) {
                for (std::size_t j = i + 1; j < golden.mistakes.size(); ++j) {
                    const auto& first = golden.mistakes[i];
                    const auto& second = golden.mistakes[j];
                    if (first.ambiguous || second.ambiguous) continue;
                    expected_golden as_second = golden;
                    as_second.tensor = second.tensor;
                    as_second.mistakes.clear();
                    EXPECT_FALSE(attn::kit::compare(first.tensor, as_second).passed)
                        << golden.path << ": '" << first.name << "' and '" << second.name
                        << "' give the same tensor, and both would be named";
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Goldens, KnownMistakesTest, ::testing::ValuesIn(all_wrong_answers()),
                         [](const auto& info) { return info.param.test_name; });

}  // namespace
