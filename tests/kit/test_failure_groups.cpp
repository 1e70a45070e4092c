// tests/kit/test_failure_groups.cpp — what a reader shows first is decided once, by the test
// program (failure_groups, kit/verdicts.hpp): `tools/kit status` and `check` only follow it.
#include "kit/verdicts.hpp"

#include <gmock/gmock.h>

#include <string>
#include <vector>

namespace {

using attn::kit::failed_test;
using attn::kit::failure_groups;
using Groups = std::vector<std::vector<std::string>>;

failed_test mismatch(const std::string& test, const std::string& alike, bool named = false) {
    failed_test failed;
    failed.name = test;
    failed.case_path = "03_softmax/" + test.substr(test.find('.') + 1);
    failed.alike = alike;
    failed.kind = "mismatch";
    failed.named = named;
    return failed;
}

TEST(FailureGroupsTest, FailuresAlikeAreOneGroupShownByItsNotebookCase) {
    const Groups groups =
        failure_groups({mismatch("w.odd_rows", "mistake:wrong_axis", true),
                        mismatch("w.rows_notebook_shape", "mistake:wrong_axis", true),
                        mismatch("w.rows_notebook", "mistake:wrong_axis", true)});
    // "_shape": a case drawn at the notebook's sizes, not the notebook's values
    EXPECT_EQ(groups, (Groups{{"w.rows_notebook", "w.odd_rows", "w.rows_notebook_shape"}}));
}

// Exercise 17: the notebook's parameters do not fit a wrong output width (a throw), while the
// hashed cases name the mistake: the name says why, so it leads; the throw comes next, before
// the other failures.
TEST(FailureGroupsTest, ANamedMistakeLeadsThenAThrowOnTheNotebooksCase) {
    failed_test threw = mismatch("w.notebook", "threw:f(x) threw attn::shape_error");
    threw.kind = "threw";
    const Groups groups = failure_groups({mismatch("w.odd", "diagnosis:w:transposed"),
                                          mismatch("w.hashed_a", "mistake:whole", true),
                                          mismatch("w.hashed_b", "mistake:whole", true), threw});
    EXPECT_EQ(groups, (Groups{{"w.hashed_a", "w.hashed_b"}, {"w.notebook"}, {"w.odd"}}));
}

TEST(FailureGroupsTest, TheMistakeMostTestsNameComesBeforeTheNotebooksUnnamedFailure) {
    const Groups groups = failure_groups({mismatch("w.notebook", "diagnosis:w:transposed"),
                                          mismatch("w.a", "mistake:wrong_axis", true),
                                          mismatch("w.b", "mistake:no_max", true),
                                          mismatch("w.c", "mistake:wrong_axis", true)});
    EXPECT_EQ(groups, (Groups{{"w.a", "w.c"}, {"w.notebook"}, {"w.b"}}));
}

// A broken law says what the numbers did ("the future leaks in"); a recorded mistake says
// which slip did it.
TEST(FailureGroupsTest, ANamedMistakeElsewhereWinsOverABrokenLawOnTheNotebook) {
    failed_test law = mismatch("mha.notebook", "law:law.causal.context");
    law.kind = "law";
    const Groups groups =
        failure_groups({law, mismatch("mha.three_heads", "mistake:no_mask", true)});
    EXPECT_EQ(groups, (Groups{{"mha.three_heads"}, {"mha.notebook"}}));
}

TEST(FailureGroupsTest, TheStudentsOwnFailuresComeBeforeStubsAndStubsBeforeWhatWaits) {
    failed_test stub = mismatch("softmax.notebook", "not_implemented");
    stub.kind = "not_implemented";
    stub.stub = true;
    failed_test waits = mismatch("forward.notebook", "mistake:no_mask", true);
    waits.waits_for = "split_heads";
    failed_test check = mismatch("split_heads.RejectsOddHeads", "check:...");
    check.case_path = "";  // an argument check
    check.kind = "check";
    const Groups groups = failure_groups(
        {waits, stub, check, mismatch("split_heads.notebook", "diagnosis:heads:misplaced")});
    // value cases before argument checks; the caller that waits for its callee last
    EXPECT_EQ(groups, (Groups{{"split_heads.notebook"},
                              {"split_heads.RejectsOddHeads"},
                              {"softmax.notebook"},
                              {"forward.notebook"}}));
}

TEST(FailureGroupsTest, NothingFailedNothingToShow) { EXPECT_EQ(failure_groups({}), Groups{}); }

}  // namespace
