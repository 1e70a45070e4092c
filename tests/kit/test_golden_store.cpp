// tests/kit/test_golden_store.cpp — goldens load only when intact, and every refusal names
// the file and how to fix it.
#include "kit/golden_store.hpp"

#include <gmock/gmock.h>

#include <filesystem>
#include <fstream>

namespace {

namespace fs = std::filesystem;
using attn::kit::golden_error;
using attn::kit::golden_store;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

const char* const weights = "03_softmax/rows_notebook/weights.npy";

// A private copy of reference_data/ that each test may damage: a tree of links to its files,
// made once for all the tests (the file system makes 4,500 links or copies in seconds, not
// milliseconds), in which each test gets MANIFEST.json as a file of its own and `weights`
// as a link again. A test that writes into `weights` makes it its own first (own()): writing
// through a link would damage reference_data/ itself.
class DamagedCopyTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        // Under the working directory, which ctest sets to this build's own tree.
        copy_ = fs::current_path() / "damaged-goldens";
        fs::remove_all(copy_);
        const fs::path root = fs::absolute(golden_store::instance().root());
        for (const auto& entry : fs::recursive_directory_iterator(root)) {
            const fs::path target = copy_ / fs::relative(entry.path(), root);
            if (entry.is_directory()) {
                fs::create_directories(target);
            } else {
                fs::create_directories(target.parent_path());
                fs::create_symlink(entry.path(), target);
            }
        }
    }
    static void TearDownTestSuite() { fs::remove_all(copy_); }

    void SetUp() override {
        const fs::path root = fs::absolute(golden_store::instance().root());
        fs::remove(copy_ / weights);
        fs::create_symlink(root / weights, copy_ / weights);
        fs::remove(copy_ / "MANIFEST.json");
        fs::copy_file(root / "MANIFEST.json", copy_ / "MANIFEST.json");
    }

    // The copy's `path` as a file of its own, no longer a link to reference_data/.
    void own(const fs::path& path) {
        const fs::path link = copy_ / path;
        const fs::path original = fs::read_symlink(link);
        fs::remove(link);
        fs::copy_file(original, link);
    }

    void rewrite_manifest(const std::string& from, const std::string& to) {
        std::ifstream in(copy_ / "MANIFEST.json");
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const auto at = text.find(from);
        ASSERT_NE(at, std::string::npos) << from;
        text.replace(at, from.size(), to);
        std::ofstream(copy_ / "MANIFEST.json") << text;
    }

    static fs::path copy_;
};

fs::path DamagedCopyTest::copy_;

TEST(GoldenStoreTest, EveryFileInTheManifestIsIntact) {
    const golden_store& store = golden_store::instance();
    std::size_t checked = 0;
    for (const char* role : {"input", "expected", "scale", "mistake", "print_sample"}) {
        for (const auto* file : store.files(role)) {
            EXPECT_NO_THROW(store.load(file->path)) << file->path;
            ++checked;
        }
    }
    EXPECT_GT(checked, 0u);
}

TEST(GoldenStoreTest, EveryCaseHasItsInputsAndExpectedOutputs) {
    const golden_store& store = golden_store::instance();
    ASSERT_FALSE(store.cases().empty());
    for (const auto* entry : store.cases()) {
        for (const auto& name : entry->inputs)
            EXPECT_EQ(store.file(entry->file(name)).role, "input");
        ASSERT_FALSE(entry->expected.empty()) << entry->path;
        for (const auto& name : entry->expected) {
            EXPECT_NO_THROW(store.expected(entry->file(name))) << entry->path << " " << name;
        }
    }
}

TEST(GoldenStoreTest, GivesATensorOfTheRecordedTypeAndShape) {
    const golden_store& store = golden_store::instance();
    const auto scores = store.load_as<float, 2>("03_softmax/rows_notebook/scores");
    EXPECT_EQ(scores.shape(0), store.file("03_softmax/rows_notebook/scores").shape[0]);
    const auto dim = store.load_as<std::int64_t, 0>("03_softmax/rows_notebook/dim");
    EXPECT_EQ(dim(), -1);
}

TEST(GoldenStoreTest, RefusesToReadAGoldenAsAnotherTypeOrRank) {
    const golden_store& store = golden_store::instance();
    const auto read_scores_as_a_vector = [&] {
        store.load_as<float, 1>("03_softmax/rows_notebook/scores");
    };
    EXPECT_THAT(read_scores_as_a_vector,
                ThrowsMessage<golden_error>(HasSubstr("as a float32 tensor of rank 1")));
    const auto read_dim_as_a_float = [&] {
        store.load_as<float, 0>("03_softmax/rows_notebook/dim");
    };
    EXPECT_THAT(read_dim_as_a_float, ThrowsMessage<golden_error>(HasSubstr("is int64")));
}

TEST(GoldenStoreTest, RefusesAnUnknownName) {
    EXPECT_THAT(
        [] { golden_store::instance().load("01_dot_scores/no_such_tensor"); },
        ThrowsMessage<golden_error>(HasSubstr("no golden named 01_dot_scores/no_such_tensor.npy")));
}

TEST_F(DamagedCopyTest, RefusesAFileWithOneByteChanged) {
    own(weights);
    const fs::path file = copy_ / weights;
    {
        std::fstream stream(file, std::ios::in | std::ios::out | std::ios::binary);
        stream.seekp(-1, std::ios::end);
        stream.put('\x7f');
    }
    const golden_store store(copy_);
    EXPECT_THAT([&] { store.load(weights); },
                ThrowsMessage<golden_error>(AllOf(HasSubstr(file.string()),
                                                  HasSubstr("is corrupted or was edited by hand"),
                                                  HasSubstr("tools/record"))));
}

TEST_F(DamagedCopyTest, RefusesAMissingFile) {
    fs::remove(copy_ / weights);
    const golden_store store(copy_);
    EXPECT_THAT([&] { store.load(weights); },
                ThrowsMessage<golden_error>(
                    AllOf(HasSubstr((copy_ / weights).string()), HasSubstr("is missing"))));
}

TEST_F(DamagedCopyTest, RefusesAMissingManifest) {
    fs::remove(copy_ / "MANIFEST.json");
    EXPECT_THAT([&] { golden_store store(copy_); },
                ThrowsMessage<golden_error>(HasSubstr("MANIFEST.json is missing")));
}

TEST_F(DamagedCopyTest, RefusesAMalformedManifest) {
    std::ofstream(copy_ / "MANIFEST.json") << "{\"files\": {\"x.npy\": {\"sha256\": 1}}}";
    EXPECT_THAT([&] { golden_store store(copy_); },
                ThrowsMessage<golden_error>(HasSubstr("MANIFEST.json is malformed")));
}

TEST_F(DamagedCopyTest, RefusesAManifestOfAnotherFormatVersion) {
    rewrite_manifest("\"format_version\": 2", "\"format_version\": 1");
    EXPECT_THAT([&] { golden_store store(copy_); },
                ThrowsMessage<golden_error>(
                    AllOf(HasSubstr("has format version 1, this kit reads version 2"),
                          HasSubstr("tools/record"))));
}

TEST_F(DamagedCopyTest, RefusesAManifestRecordedUnderAnotherToleranceRule) {
    rewrite_manifest("\"atol\": 1e-06", "\"atol\": 0.001");
    EXPECT_THAT([&] { golden_store store(copy_); },
                ThrowsMessage<golden_error>(HasSubstr("another tolerance rule")));
}

}  // namespace
