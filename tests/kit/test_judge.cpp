// tests/kit/test_judge.cpp — the judge decides from result files alone, and trusts none of
// what the runner's process could have forged.
#include "kit/judge.hpp"
#include "kit/npy.hpp"

#include <gmock/gmock.h>

#include <filesystem>
#include <fstream>

namespace {

namespace fs = std::filesystem;
using attn::kit::golden_store;
using ::testing::HasSubstr;

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
        for (const auto& verdict : attn::kit::judge(store(), results_, "03")) {
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
    const auto verdicts = attn::kit::judge(store(), results_, "03");
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

TEST_F(JudgeTest, RefusesALinkToTheExpectedTensor) {
    fs::create_symlink(store().root() / rows_case / "weights.npy",
                       results_ / rows_case / "weights.npy");
    const auto verdict = verdict_of_rows_case();
    EXPECT_FALSE(verdict.passed);
    EXPECT_THAT(verdict.reason, HasSubstr("not a plain file"));
}

TEST_F(JudgeTest, AForgedFileFailsWithAReason) {
    std::ofstream(results_ / rows_case / "weights.npy") << "100% tests passed";
    const auto verdict = verdict_of_rows_case();
    EXPECT_FALSE(verdict.passed);
    EXPECT_THAT(verdict.reason, HasSubstr("not a readable .npy file"));
}

TEST_F(JudgeTest, WritesValidJsonEvenFromInvalidUtf8) {
    std::ofstream(results_ / rows_case / "error.txt") << "bad \xff\xfe bytes\n";
    const auto json = attn::kit::verdicts_json(store(), attn::kit::judge(store(), results_, "03"));
    EXPECT_THAT(json, HasSubstr("\"case\": \"03_softmax/rows_notebook\""));
    EXPECT_THAT(json, HasSubstr("bad"));
}

}  // namespace
