// tests/kit/test_judge.cpp — the judge decides from result files alone, and trusts none of
// what the runner's process could have forged.
#include "attn/tensor.hpp"
#include "kit/judge.hpp"
#include "kit/npy.hpp"

#include <gmock/gmock.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using attn::kit::golden_store;
using ::testing::HasSubstr;
using ::testing::Not;

const char* const rows_case = "03_softmax/rows_notebook";

class JudgeTest : public ::testing::Test {
protected:
    void SetUp() override {
        results_ = fs::current_path() /
                   ("judge-" +
                    std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(results_);
        fs::create_directories(results_ / rows_case);
    }
    void TearDown() override { fs::remove_all(results_); }

    attn::kit::comparison verdict_of_rows_case() const {
        for (const auto& verdict :
             attn::kit::judge(store(), attn::kit::result_folder(results_), "03")) {
            if (verdict.case_path == rows_case) return verdict.outputs.at(0).verdict;
        }
        ADD_FAILURE() << "no verdict for " << rows_case;
        return {};
    }
    static const golden_store& store() { return golden_store::instance(); }

    fs::path results_;
};

TEST_F(JudgeTest, PassesTheExpectedTensorAndFailsEveryOtherCaseWithoutResults) {
    attn::kit::write_npy(results_ / rows_case / "weights.npy",
                         store().load(std::string(rows_case) + "/weights"));
    const auto verdicts = attn::kit::judge(store(), attn::kit::result_folder(results_), "03");
    ASSERT_EQ(verdicts.size(), store().cases("03").size());
    for (const auto& verdict : verdicts) EXPECT_EQ(verdict.passed, verdict.case_path == rows_case);
}

TEST_F(JudgeTest, AMissingResultSaysTheProgramStopped) {
    EXPECT_THAT(verdict_of_rows_case().reason, HasSubstr("no result: the program stopped"));
}

TEST_F(JudgeTest, AThrowIsReportedWithTheRunnersLine) {
    std::ofstream(results_ / rows_case / "error.txt") << "exercises/03_softmax.cpp: attn::softmax"
                                                         "(scores, dim) is not implemented yet\n";
    EXPECT_THAT(verdict_of_rows_case().reason,
                HasSubstr("exercises/03_softmax.cpp: attn::softmax"));
}

// The judge's verdict on the rows case, whole.
attn::kit::case_verdict case_verdict_of(const fs::path& results, const std::string& path) {
    for (auto& verdict :
         attn::kit::judge(golden_store::instance(), attn::kit::result_folder(results), "03")) {
        if (verdict.case_path == path) return verdict;
    }
    ADD_FAILURE() << "no verdict for " << path;
    return {};
}

TEST_F(JudgeTest, AStubIsMarkedNotImplementedFromTheRunnersFileName) {
    const std::string stub_line =
        "exercises/03_softmax.cpp: attn::softmax(scores, dim) is not "
        "implemented yet (replace the throw with your code)";
    std::ofstream(results_ / rows_case / "not_implemented.txt") << stub_line << "\n";
    const auto verdict = case_verdict_of(results_, rows_case);
    EXPECT_TRUE(verdict.not_implemented);
    EXPECT_FALSE(verdict.passed);
    EXPECT_EQ(verdict.outputs.at(0).verdict.reason, stub_line);
    const auto json = nlohmann::json::parse(attn::kit::verdicts_json(
        store(), attn::kit::judge(store(), attn::kit::result_folder(results_), "03")));
    for (const auto& entry : json["cases"]) {
        EXPECT_EQ(entry.at("not_implemented"), entry["case"] == rows_case) << entry["case"];
    }
}

TEST_F(JudgeTest, AStudentsOwnNotImplementedTextIsAnOrdinaryFailure) {
    // The student's code threw its own exception, whose text reads like the stub's.
    std::ofstream(results_ / rows_case / "error.txt")
        << "softmax(scores, dim) threw std::runtime_error: \"attn::softmax is not implemented "
           "yet\"\n";
    const auto verdict = case_verdict_of(results_, rows_case);
    EXPECT_FALSE(verdict.not_implemented);
    EXPECT_THAT(verdict.outputs.at(0).verdict.reason, HasSubstr("is not implemented yet"));
    const auto json = nlohmann::json::parse(attn::kit::verdicts_json(
        store(), attn::kit::judge(store(), attn::kit::result_folder(results_), "03")));
    for (const auto& entry : json["cases"]) EXPECT_EQ(entry.at("not_implemented"), false);
}

TEST_F(JudgeTest, AStubsFileBesideAPassingResultMarksNothing) {
    attn::kit::write_npy(results_ / rows_case / "weights.npy",
                         store().load(std::string(rows_case) + "/weights"));
    std::ofstream(results_ / rows_case / "not_implemented.txt") << "left over\n";
    const auto verdict = case_verdict_of(results_, rows_case);
    EXPECT_TRUE(verdict.passed);
    EXPECT_FALSE(verdict.not_implemented);
}

TEST_F(JudgeTest, RefusesALinkToTheExpectedTensor) {
    fs::create_symlink(store().root() / rows_case / "weights.npy",
                       results_ / rows_case / "weights.npy");
    const auto verdict = verdict_of_rows_case();
    EXPECT_FALSE(verdict.passed);
    EXPECT_THAT(verdict.reason, HasSubstr("not a plain file"));
}

// The attacks a runner that owns its result folder could make: the judge reads below the
// folder it was given, opened without following links, files of the runner's uid with one name.
TEST_F(JudgeTest, RefusesALinkToTheExpectedTensorsFolder) {
    fs::remove_all(results_ / rows_case);
    fs::create_directory_symlink(store().root() / rows_case, results_ / rows_case);
    EXPECT_THAT(verdict_of_rows_case().reason, HasSubstr("not a plain file"));
}

TEST_F(JudgeTest, RefusesAResultFolderThatIsALink) {
    const fs::path link = results_.string() + "-link";
    fs::remove(link);
    fs::create_directory_symlink(store().root(), link);
    EXPECT_THROW(
        {
            try {
                attn::kit::result_folder folder(link);
            } catch (const std::runtime_error& error) {
                EXPECT_THAT(error.what(), HasSubstr("follows none"));
                throw;
            }
        },
        std::runtime_error);
    fs::remove(link);
}

TEST_F(JudgeTest, RefusesAHardLinkedResult) {
    const auto elsewhere = results_ / "elsewhere.npy";
    attn::kit::write_npy(elsewhere, store().load(std::string(rows_case) + "/weights"));
    fs::create_hard_link(elsewhere, results_ / rows_case / "weights.npy");
    EXPECT_THAT(verdict_of_rows_case().reason, HasSubstr("not a plain file of the program's"));
}

TEST_F(JudgeTest, RefusesAFolderOrFileOfAnotherOwner) {
    attn::kit::write_npy(results_ / rows_case / "weights.npy",
                         store().load(std::string(rows_case) + "/weights"));
    const uid_t someone_else = ::getuid() + 1;
    EXPECT_THROW(attn::kit::result_folder(results_, someone_else), std::runtime_error);
    // Its own: the result passes.
    const attn::kit::result_folder own(results_, ::getuid());
    EXPECT_EQ(own.look(fs::path(rows_case) / "weights.npy"),
              attn::kit::result_folder::entry::plain);
    EXPECT_EQ(own.look("../x"), attn::kit::result_folder::entry::other);
}

TEST_F(JudgeTest, AForgedFileFailsWithAReason) {
    std::ofstream(results_ / rows_case / "weights.npy") << "100% tests passed";
    const auto verdict = verdict_of_rows_case();
    EXPECT_FALSE(verdict.passed);
    EXPECT_THAT(verdict.reason, HasSubstr("not a readable .npy file"));
    // Named as the student's program wrote it, not where the grader keeps its results.
    EXPECT_THAT(verdict.reason, HasSubstr("03_softmax/rows_notebook/weights.npy"));
    EXPECT_THAT(verdict.reason, Not(HasSubstr(results_.string())));
}

TEST_F(JudgeTest, AFileTooLargeToReadIsNamedRelativeToTheResults) {
    // Refused before a byte is read, by the file reader, which names the path it opened.
    const auto path = results_ / rows_case / "weights.npy";
    std::ofstream(path) << "x";
    fs::resize_file(path, attn::kit::max_npy_bytes + 1);  // sparse: no disk used
    const auto verdict = verdict_of_rows_case();
    EXPECT_FALSE(verdict.passed);
    EXPECT_THAT(verdict.reason, ::testing::StartsWith("03_softmax/rows_notebook/weights.npy is "
                                                      "more than the"));
    EXPECT_THAT(verdict.reason, Not(HasSubstr(results_.string())));
}

// A hidden case: what the verdict says of a wrong result, `shown` and `withheld`.
class HiddenJudgeTest : public JudgeTest {
protected:
    attn::kit::comparison verdict_with(attn::kit::expected_values shown) const {
        for (const auto& verdict :
             attn::kit::judge(store(), attn::kit::result_folder(results_), "03", shown)) {
            if (verdict.case_path == rows_case) return verdict.outputs.at(0).verdict;
        }
        ADD_FAILURE() << "no verdict for " << rows_case;
        return {};
    }
    static attn::kit::any_tensor expected_weights() {
        return store().load(std::string(rows_case) + "/weights");
    }
};

TEST_F(HiddenJudgeTest, AWrongValueIsLocatedWithoutTheExpectedValue) {
    auto wrong = std::get<xt::xarray<float>>(expected_weights());
    wrong += 0.5F;
    attn::kit::write_npy(results_ / rows_case / "weights.npy", attn::kit::any_tensor(wrong));
    const auto shown = verdict_with(attn::kit::expected_values::shown);
    ASSERT_THAT(shown.reason, HasSubstr(", expected "));  // what the public feedback says
    ASSERT_THAT(shown.details, Not(::testing::IsEmpty()));

    const auto withheld = verdict_with(attn::kit::expected_values::withheld);
    EXPECT_FALSE(withheld.passed);
    EXPECT_THAT(withheld.reason, HasSubstr("values differ; worst at ["));
    EXPECT_THAT(withheld.reason, HasSubstr("beyond the tolerance"));
    EXPECT_THAT(withheld.reason, Not(HasSubstr("expected")));
    EXPECT_EQ(withheld.details, "");
    const auto json = attn::kit::verdicts_json(
        store(), attn::kit::judge(store(), attn::kit::result_folder(results_), "03",
                                  attn::kit::expected_values::withheld));
    EXPECT_THAT(json, Not(HasSubstr("tensor(")));  // no tensor printed, either one
    // The expected value the public reason names ("..., expected 0.124228 (...)") is nowhere,
    // nor any other value of the golden, and no output has details.
    const auto after = shown.reason.find(", expected ") + std::string(", expected ").size();
    const auto expected_value = shown.reason.substr(after, shown.reason.find(' ', after) - after);
    EXPECT_THAT(json, Not(HasSubstr(expected_value)));
    for (const double value : attn::kit::values_of(expected_weights())) {
        char printed[32];
        std::snprintf(printed, sizeof printed, "%.6g", value);
        EXPECT_THAT(json, Not(HasSubstr(printed)));
    }
    // Parsed into a variable: a range-for over a member of a temporary reads freed memory.
    const auto parsed = nlohmann::json::parse(json);
    for (const auto& verdict : parsed["cases"]) {
        for (const auto& output : verdict["outputs"]) EXPECT_EQ(output["details"], "");
    }
}

TEST_F(HiddenJudgeTest, AShapeMismatchDoesNotTellTheExpectedShape) {
    attn::kit::write_npy(results_ / rows_case / "weights.npy",
                         attn::kit::any_tensor(xt::xarray<float>({1.0F, 2.0F, 3.0F, 4.0F, 5.0F})));
    const auto shape = attn::shape_string(attn::kit::shape_of(expected_weights()));
    EXPECT_THAT(verdict_with(attn::kit::expected_values::shown).reason, HasSubstr(shape));
    const auto withheld = verdict_with(attn::kit::expected_values::withheld);
    EXPECT_EQ(withheld.reason, "has shape (5,), not the expected shape");
    EXPECT_EQ(withheld.details, "");
    const auto json = attn::kit::verdicts_json(
        store(), attn::kit::judge(store(), attn::kit::result_folder(results_), "03",
                                  attn::kit::expected_values::withheld));
    EXPECT_THAT(json, Not(HasSubstr(shape)));
}

TEST_F(HiddenJudgeTest, ADtypeMismatchDoesNotTellTheExpectedDtype) {
    const auto shape = attn::kit::shape_of(expected_weights());
    attn::kit::write_npy(
        results_ / rows_case / "weights.npy",
        xt::xarray<std::int64_t>(xt::xarray<std::int64_t>::shape_type(shape.begin(), shape.end())));
    const auto withheld = verdict_with(attn::kit::expected_values::withheld);
    EXPECT_EQ(withheld.reason, "has dtype int64, not the expected dtype");
    EXPECT_EQ(withheld.details, "");
}

TEST_F(HiddenJudgeTest, AMalformedFileIsNamedRelativeToTheResults) {
    std::ofstream(results_ / rows_case / "weights.npy") << "100% tests passed";
    const auto withheld = verdict_with(attn::kit::expected_values::withheld);
    EXPECT_EQ(withheld.reason,
              "03_softmax/rows_notebook/weights.npy is not a readable .npy "
              "file: it does not start with NumPy's magic string");
    EXPECT_EQ(withheld.details, "");
}

TEST_F(HiddenJudgeTest, ARecordedMistakeIsStillNamed) {
    attn::kit::write_npy(results_ / rows_case / "weights.npy",
                         attn::kit::read_npy(store().root() / rows_case / "mistakes" /
                                             "weights.first_column_unfilled.npy"));
    const auto shown = verdict_with(attn::kit::expected_values::shown);
    const auto withheld = verdict_with(attn::kit::expected_values::withheld);
    EXPECT_FALSE(withheld.passed);
    EXPECT_NE(withheld.mistake, "");
    EXPECT_NE(withheld.hint, "");
    EXPECT_EQ(withheld.mistake, shown.mistake);
    EXPECT_EQ(withheld.hint, shown.hint);
    EXPECT_THAT(withheld.reason, Not(HasSubstr("expected")));
    EXPECT_EQ(withheld.details, "");
}

// A name rests on every case of the function: rows_dim1 passing rules out every mistake its
// golden records, so rows_notebook's result, equal to one of them, names it no more and says
// the shape of its error instead; without that case's result the name stays.
TEST_F(JudgeTest, ANameAnotherCaseOfTheFunctionRulesOutIsTakenBack) {
    const std::string sibling = "03_softmax/rows_dim1";
    attn::kit::write_npy(results_ / rows_case / "weights.npy",
                         attn::kit::read_npy(store().root() / rows_case / "mistakes" /
                                             "weights.first_column_unfilled.npy"));
    const auto named = verdict_of_rows_case();
    ASSERT_NE(named.mistake, "");
    EXPECT_EQ(named.taken_back, "");

    fs::create_directories(results_ / sibling);
    attn::kit::write_npy(results_ / sibling / "weights.npy", store().load(sibling + "/weights"));
    const auto checked = verdict_of_rows_case();
    EXPECT_FALSE(checked.passed);
    EXPECT_EQ(checked.mistake, "");
    EXPECT_EQ(checked.hint, "");
    EXPECT_EQ(checked.taken_back, named.mistake);
    EXPECT_EQ(checked.diagnosis, named.diagnosis);
    EXPECT_EQ(checked.reason, named.reason);
}

TEST_F(JudgeTest, WritesValidJsonEvenFromInvalidUtf8) {
    std::ofstream(results_ / rows_case / "error.txt") << "bad \xff\xfe bytes\n";
    const auto json = attn::kit::verdicts_json(
        store(), attn::kit::judge(store(), attn::kit::result_folder(results_), "03"));
    EXPECT_THAT(json, HasSubstr("\"case\": \"03_softmax/rows_notebook\""));
    EXPECT_THAT(json, HasSubstr("bad"));
}

TEST_F(JudgeTest, ADtypeOtherThanTheGoldensFailsNamingBoth) {
    // The expected weights are float32 (2, 3) or so: the same shape in int64 must not pass.
    const auto expected = store().load(std::string(rows_case) + "/weights");
    const auto shape = attn::kit::shape_of(expected);
    attn::kit::write_npy(
        results_ / rows_case / "weights.npy",
        xt::xarray<std::int64_t>(xt::xarray<std::int64_t>::shape_type(shape.begin(), shape.end())));
    const auto verdict = verdict_of_rows_case();
    EXPECT_FALSE(verdict.passed);
    EXPECT_EQ(verdict.reason, "has dtype int64, expected float32");
}

TEST_F(JudgeTest, TheRunnersLineIsShownPrintableOnOneLine) {
    std::ofstream(results_ / rows_case / "error.txt")
        << "bad\x1b[2J\x07\r\tend\x7f \xc2\x9b[31m caf\xc3\xa9\nsecond line\n";
    EXPECT_EQ(verdict_of_rows_case().reason, "bad?[2J???end? ?[31m caf\xc3\xa9");
}

TEST_F(JudgeTest, ALongLineOfTheRunnerIsCutBetweenCharacters) {
    // 399 bytes, then a 2-byte character across the 400-byte cap.
    std::ofstream(results_ / rows_case / "error.txt")
        << std::string(399, 'a') << "\xc3\xa9 and more";
    EXPECT_EQ(verdict_of_rows_case().reason, std::string(399, 'a') + "…");
}

TEST_F(JudgeTest, AForgedHeaderIsQuotedPrintable) {
    std::ofstream(results_ / rows_case / "weights.npy")
        << std::string("\x93NUMPY\x01\x00\x40\x00", 10)
        << "{'descr': '\x1b]0;pwned\x07', 'fortran_order': False, 'shape': (1,), }       \n";
    const auto reason = verdict_of_rows_case().reason;
    EXPECT_THAT(reason, HasSubstr("dtype ?]0;pwned?;"));
    EXPECT_THAT(reason, Not(HasSubstr("\x1b")));
}

TEST_F(JudgeTest, AFifoIsNeitherReadNorWaitedOn) {
    ASSERT_EQ(::mkfifo((results_ / rows_case / "weights.npy").c_str(), 0600), 0);
    ASSERT_EQ(::mkfifo((results_ / rows_case / "error.txt").c_str(), 0600), 0);
    EXPECT_THAT(verdict_of_rows_case().reason, HasSubstr("not a plain file"));
    fs::remove(results_ / rows_case / "weights.npy");
    EXPECT_THAT(verdict_of_rows_case().reason, HasSubstr("no result: the program stopped"));
}

TEST(PrintableLineTest, ReplacesControlCharactersAndCapsWithoutSplittingACharacter) {
    using attn::kit::printable_line;
    EXPECT_EQ(printable_line("a\tb\x01\x1f\x7f~ \xc2\x80\xc2\x9f\xc2\xa0", 100),
              "a?b???~ ??\xc2\xa0");
    EXPECT_EQ(printable_line("abcdef", 6), "abcdef");
    EXPECT_EQ(printable_line("abcdef", 3), "abc…");
    EXPECT_EQ(printable_line("ab\xe2\x82\xac", 4), "ab…");  // € cut: dropped whole
    EXPECT_EQ(printable_line("ab\xf0\x9f\x98\x80"
                             "c",
                             5),
              "ab…");  // 4-byte character
}

TEST_F(JudgeTest, AVerdictFileIsWrittenWholeOrNotAtAll) {
    const auto out = results_ / "verdicts.json";
    std::ofstream(out) << "an older, longer verdict file";
    attn::kit::write_file_atomically(out, "{}\n");
    std::ostringstream text;
    text << std::ifstream(out).rdbuf();
    EXPECT_EQ(text.str(), "{}\n");
    EXPECT_FALSE(fs::exists(results_ / "verdicts.json.tmp"));

    const auto nowhere = results_ / "no-such-folder" / "verdicts.json";
    EXPECT_THAT([&] { attn::kit::write_file_atomically(nowhere, "{}\n"); },
                ::testing::ThrowsMessage<std::runtime_error>("could not write " + nowhere.string() +
                                                             ": No such file or directory"));
    fs::create_directory(results_ / "a-folder");
    EXPECT_THAT([&] { attn::kit::write_file_atomically(results_ / "a-folder", "{}\n"); },
                ::testing::ThrowsMessage<std::runtime_error>(HasSubstr("could not write")));
    EXPECT_FALSE(fs::exists(results_ / "a-folder.tmp"));
}

}  // namespace
