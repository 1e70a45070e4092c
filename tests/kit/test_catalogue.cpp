// tests/kit/test_catalogue.cpp — exercises.json, the two trees and the goldens agree.
//
// The mirror check: exercises/ and solutions/ hold exactly the files exercises.json lists,
// under the same names; every listed test, header and golden folder exists; every exercise
// has at least two recorded mistakes its failures can name.
#include "kit/golden.hpp"

#include <gmock/gmock.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace {

namespace fs = std::filesystem;
const fs::path source_dir = ATTN_SOURCE_DIR;

std::string read_text(const fs::path& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

const nlohmann::json& catalogue() {
    static const auto json = nlohmann::json::parse(read_text(source_dir / "exercises.json"));
    return json;
}

std::set<std::string> files_under(const std::string& folder) {
    std::set<std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(source_dir / folder)) {
        if (entry.is_regular_file()) {
            files.insert(fs::relative(entry.path(), source_dir / folder).generic_string());
        }
    }
    return files;
}

std::set<std::string> listed(const std::string& key, const std::string& folder) {
    std::set<std::string> files;
    for (const auto& exercise : catalogue().at("exercises")) {
        files.insert(fs::relative(exercise.at(key).get<std::string>(), folder).generic_string());
    }
    return files;
}

TEST(CatalogueTest, ExercisesAreNumberedInCourseOrder) {
    int number = 0;
    for (const auto& exercise : catalogue().at("exercises")) {
        ++number;
        const std::string id = (number < 10 ? "0" : "") + std::to_string(number);
        EXPECT_EQ(exercise.at("id").get<std::string>(), id);
        EXPECT_EQ(exercise.at("label").get<std::string>(), "ex" + id);
        for (const auto& used : exercise.at("uses")) {
            EXPECT_LT(used.get<std::string>(), id) << "an exercise uses earlier ones only";
        }
    }
}

TEST(CatalogueTest, StubsAndSolutionsMirrorEachOtherWithNoStrayFiles) {
    EXPECT_EQ(files_under("exercises"), listed("stub", "exercises"));
    EXPECT_EQ(files_under("solutions"), listed("solution", "solutions"));
    EXPECT_EQ(listed("stub", "exercises"), listed("solution", "solutions"));
}

TEST(CatalogueTest, EveryListedFileAndGoldenFolderExists) {
    for (const auto& exercise : catalogue().at("exercises")) {
        for (const char* key : {"stub", "solution", "test", "header", "goldens"}) {
            EXPECT_TRUE(fs::exists(source_dir / exercise.at(key).get<std::string>()))
                << exercise.at("id") << ": " << key << " " << exercise.at(key);
        }
    }
}

TEST(CatalogueTest, EveryNotImplementedNamesItsOwnFile) {
    const std::regex thrown(R"re(not_implemented\("([^"]+)")re");
    for (const auto& exercise : catalogue().at("exercises")) {
        const auto stub = exercise.at("stub").get<std::string>();
        const auto text = read_text(source_dir / stub);
        for (std::sregex_iterator it(text.begin(), text.end(), thrown), end; it != end; ++it) {
            EXPECT_EQ((*it)[1].str(), stub);
        }
        EXPECT_THAT(read_text(source_dir / exercise.at("solution").get<std::string>()),
                    ::testing::Not(::testing::HasSubstr("not_implemented")));
    }
}

TEST(CatalogueTest, EveryExerciseHasAtLeastTwoRecordedMistakes) {
    for (const auto& exercise : catalogue().at("exercises")) {
        const auto id = exercise.at("id").get<std::string>();
        EXPECT_GE(attn::kit::GoldenStore::instance().entries("mistake", id).size(), 2u)
            << "exercise " << id;
    }
}

TEST(CatalogueTest, EveryExerciseHasGradedHints) {
    for (const auto& exercise : catalogue().at("exercises")) {
        EXPECT_GE(exercise.at("hints").size(), 2u) << "exercise " << exercise.at("id");
    }
}

}  // namespace
