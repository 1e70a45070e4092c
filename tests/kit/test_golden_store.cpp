// tests/kit/test_golden_store.cpp — goldens load only when intact, and every refusal names
// the file and how to fix it.
#include "kit/golden.hpp"
#include "kit/tensor_assert.hpp"

#include <gmock/gmock.h>

#include <filesystem>
#include <fstream>

namespace {

namespace fs = std::filesystem;
using attn::kit::golden_error;
using attn::kit::GoldenStore;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// A private copy of reference_data/ that a test may damage.
class DamagedCopyTest : public ::testing::Test {
protected:
    void SetUp() override {
        // Under the working directory, which ctest sets to this build's own tree.
        copy_ = fs::current_path() /
                ("damaged-goldens-" +
                 std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(copy_);
        fs::copy(GoldenStore::instance().root(), copy_, fs::copy_options::recursive);
    }
    void TearDown() override { fs::remove_all(copy_); }

    fs::path copy_;
};

TEST(GoldenStoreTest, EveryFileInTheManifestIsIntact) {
    const GoldenStore& store = GoldenStore::instance();
    std::size_t checked = 0;
    for (const char* role : {"input", "expected", "mistake", "print_sample"}) {
        for (const auto* entry : store.entries(role)) {
            EXPECT_NO_THROW(store.load(entry->path)) << entry->path;
            ++checked;
        }
    }
    EXPECT_GT(checked, 0u);
}

TEST(GoldenStoreTest, GivesATensorOfTheRecordedShape) {
    const auto inputs = attn::kit::golden<2>("01_dot_scores/inputs");
    EXPECT_EQ(inputs.shape(0), 6u);
    EXPECT_EQ(inputs.shape(1), 3u);
}

TEST(GoldenStoreTest, RefusesToReadAGoldenAtTheWrongRank) {
    EXPECT_THAT([] { attn::kit::golden<1>("01_dot_scores/inputs"); },
                ThrowsMessage<golden_error>(HasSubstr("has 2 dimensions")));
}

TEST(GoldenStoreTest, RefusesAnUnknownName) {
    EXPECT_THAT(
        [] { GoldenStore::instance().load("01_dot_scores/no_such_tensor"); },
        ThrowsMessage<golden_error>(HasSubstr("no golden named 01_dot_scores/no_such_tensor.npy")));
}

TEST_F(DamagedCopyTest, RefusesAFileWithOneByteChanged) {
    const fs::path file = copy_ / "03_softmax/attn_weights.npy";
    {
        std::fstream stream(file, std::ios::in | std::ios::out | std::ios::binary);
        stream.seekp(-1, std::ios::end);
        stream.put('\x7f');
    }
    const GoldenStore store(copy_);
    EXPECT_THAT([&] { store.load("03_softmax/attn_weights"); },
                ThrowsMessage<golden_error>(AllOf(HasSubstr(file.string()),
                                                  HasSubstr("is corrupted or was edited by hand"),
                                                  HasSubstr("record_goldens.py"))));
}

TEST_F(DamagedCopyTest, RefusesAMissingFile) {
    const fs::path file = copy_ / "02_normalize_by_sum/attention_weights_2_tmp.npy";
    fs::remove(file);
    const GoldenStore store(copy_);
    EXPECT_THAT(
        [&] { store.load("02_normalize_by_sum/attention_weights_2_tmp"); },
        ThrowsMessage<golden_error>(AllOf(HasSubstr(file.string()), HasSubstr("is missing"))));
}

TEST_F(DamagedCopyTest, RefusesAMissingManifest) {
    fs::remove(copy_ / "MANIFEST.json");
    EXPECT_THAT([&] { GoldenStore store(copy_); },
                ThrowsMessage<golden_error>(HasSubstr("MANIFEST.json is missing")));
}

TEST_F(DamagedCopyTest, RefusesAMalformedManifest) {
    std::ofstream(copy_ / "MANIFEST.json") << "{\"files\": {\"x.npy\": {\"sha256\": 1}}}";
    EXPECT_THAT([&] { GoldenStore store(copy_); },
                ThrowsMessage<golden_error>(HasSubstr("MANIFEST.json is malformed")));
}

TEST(GoldenAssertionTest, FailsWithTheGoldensErrorInsteadOfThrowing) {
    const xt::xarray<float> anything = {1.0f};
    const auto verdict =
        attn::kit::tensor_matches_golden("x", "name", anything, "01_dot_scores/missing");
    ASSERT_FALSE(verdict);
    EXPECT_THAT(verdict.message(), HasSubstr("no golden named 01_dot_scores/missing.npy"));
}

}  // namespace
