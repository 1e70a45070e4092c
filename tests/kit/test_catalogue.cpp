// tests/kit/test_catalogue.cpp — exercises.json, the two trees, the tests and the goldens agree.
//
// The mirror check: the stubs and solutions/ hold exactly the files exercises.json lists,
// under the same names, and define the same functions; every function of a stub carries a
// TODO and throws attn::not_implemented naming its own file; every listed test, header and
// golden folder exists; every exercise has cases beyond the notebook's inputs and recorded
// mistakes its failures can name; no test states a tensor size.
#include "kit/golden_store.hpp"

#include <gmock/gmock.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace {

namespace fs = std::filesystem;
const fs::path source_dir = ATTN_SOURCE_DIR;
// The stubs this build compiled as the exercises track: exercises/ in a student's build, the
// stubs as git holds them in tools/kit test's (a student's edits are not the kit's defects).
const fs::path stubs_dir = ATTN_EXERCISES_DIR;

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

std::set<std::string> files_under(const fs::path& folder) {
    std::set<std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(folder)) {
        if (entry.is_regular_file()) {
            files.insert(fs::relative(entry.path(), folder).generic_string());
        }
    }
    return files;
}

// A stub as this build compiled it ("exercises/03_softmax.cpp" in exercises.json).
std::string read_stub(const nlohmann::json& exercise) {
    return read_text(stubs_dir / fs::path(exercise.at("stub").get<std::string>()).filename());
}

std::set<std::string> listed(const std::string& key, const std::string& folder) {
    std::set<std::string> files;
    for (const auto& exercise : catalogue().at("exercises")) {
        files.insert(fs::relative(exercise.at(key).get<std::string>(), folder).generic_string());
    }
    return files;
}

// The functions a source file defines at namespace scope, a solution's helpers in an
// anonymous namespace left out: signature -> body. A definition starts at column 0 with a
// return type and a name, its signature (maybe over several lines) ends with "{", and its
// body at the next "}" in column 0. A signature is compared with its lines joined, spaces
// collapsed and [[maybe_unused]] (a stub's mark on what its body does not use yet) dropped.
std::map<std::string, std::string> function_bodies(const std::string& text) {
    static const std::regex definition_start(R"(^[A-Za-z][\w:<>, ]*\s[\w:]+\(.*)");
    static const std::regex unused(R"(\[\[maybe_unused\]\]\s*)"), spaces(R"(\s+)"),
        after_paren(R"(\(\s)"), before_paren(R"(\s\))");
    std::map<std::string, std::string> bodies;
    std::istringstream lines(text);
    std::string line, signature, body;
    bool in_signature = false, in_body = false, anonymous = false;
    while (std::getline(lines, line)) {
        if (line == "namespace {") anonymous = true;
        if (anonymous && line.rfind("}  // namespace", 0) == 0) anonymous = false;
        if (!in_signature && !in_body && !anonymous && std::regex_match(line, definition_start)) {
            in_signature = true;
            signature.clear();
        }
        if (in_signature) {
            signature += line + " ";
            if (!line.empty() && line.back() == '{') {
                in_signature = false;
                in_body = true;
                body.clear();
            }
        } else if (in_body && line == "}") {
            std::string key =
                std::regex_replace(std::regex_replace(signature, unused, ""), spaces, " ");
            key = std::regex_replace(std::regex_replace(key, after_paren, "("), before_paren, ")");
            bodies[key.substr(0, key.find_last_not_of(' ') + 1)] = body;
            in_body = false;
        } else if (in_body) {
            body += line + "\n";
        }
    }
    return bodies;
}

// The code of a file without its comments and string literals.
std::string code_only(const std::string& text) {
    static const std::regex comments_and_strings(R"(//[^\n]*|"(\\.|[^"\\])*")");
    return std::regex_replace(text, comments_and_strings, " ");
}

TEST(CatalogueTest, ExercisesAreNumberedInCourseOrder) {
    int number = 0;
    for (const auto& exercise : catalogue().at("exercises")) {
        ++number;
        const std::string id = (number < 10 ? "0" : "") + std::to_string(number);
        EXPECT_EQ(exercise.at("id").get<std::string>(), id);
        EXPECT_EQ(exercise.at("label").get<std::string>(), "ex" + id);
    }
}

TEST(CatalogueTest, StubsAndSolutionsMirrorEachOtherWithNoStrayFiles) {
    EXPECT_EQ(files_under(stubs_dir), listed("stub", "exercises"));
    EXPECT_EQ(files_under(source_dir / "solutions"), listed("solution", "solutions"));
    EXPECT_EQ(listed("stub", "exercises"), listed("solution", "solutions"));
}

TEST(CatalogueTest, EveryListedFileAndGoldenFolderExists) {
    for (const auto& exercise : catalogue().at("exercises")) {
        for (const char* key : {"solution", "test", "header", "goldens"}) {
            EXPECT_TRUE(fs::exists(source_dir / exercise.at(key).get<std::string>()))
                << exercise.at("id") << ": " << key << " " << exercise.at(key);
        }
    }
}

TEST(CatalogueTest, EveryFunctionOfAStubHasATodoAndThrowsNotImplementedNamingItsFile) {
    for (const auto& exercise : catalogue().at("exercises")) {
        const auto stub = exercise.at("stub").get<std::string>();
        const auto stub_functions = function_bodies(read_stub(exercise));
        const auto solved_functions =
            function_bodies(read_text(source_dir / exercise.at("solution").get<std::string>()));
        EXPECT_FALSE(stub_functions.empty()) << stub << " defines no function";
        for (const auto& [signature, body] : stub_functions) {
            EXPECT_THAT(body, ::testing::HasSubstr("// TODO")) << stub << ": " << signature;
            EXPECT_THAT(body, ::testing::HasSubstr("throw not_implemented(\"" + stub + "\""))
                << stub << ": " << signature;
            EXPECT_EQ(solved_functions.count(signature), 1u)
                << "the solution does not define " << signature;
        }
        EXPECT_EQ(stub_functions.size(), solved_functions.size()) << stub;
        for (const auto& [signature, body] : solved_functions) {
            EXPECT_THAT(body, ::testing::Not(::testing::HasSubstr("not_implemented"))) << signature;
        }
    }
}

TEST(CatalogueTest, EveryKindOfCaseHasACaseBeyondTheNotebooksInputs) {
    for (const auto& exercise : catalogue().at("exercises")) {
        const auto id = exercise.at("id").get<std::string>();
        std::map<std::string, int> other_shapes;  // kind -> cases not on the notebook's inputs
        for (const auto* entry : attn::kit::golden_store::instance().cases(id)) {
            other_shapes[entry->kind] += entry->name().find("notebook") == std::string::npos;
        }
        EXPECT_FALSE(other_shapes.empty()) << "exercise " << id << " has no case";
        for (const auto& [kind, count] : other_shapes) {
            EXPECT_GE(count, 1) << "exercise " << id << ": every case of " << kind
                                << " uses the notebook's inputs; record one at another shape";
        }
    }
}

TEST(CatalogueTest, EveryExerciseHasAtLeastTwoRecordedMistakes) {
    for (const auto& exercise : catalogue().at("exercises")) {
        const auto id = exercise.at("id").get<std::string>();
        EXPECT_GE(attn::kit::golden_store::instance().files("mistake", id).size(), 2u)
            << "exercise " << id;
    }
}

TEST(CatalogueTest, EveryExerciseHasGradedHints) {
    for (const auto& exercise : catalogue().at("exercises")) {
        EXPECT_GE(exercise.at("hints").size(), 2u) << "exercise " << exercise.at("id");
    }
}

// The student has no seed notebooks: each exercise names the public notebook cells it
// mirrors (tools/kit hint prints them), and its stub and header give the same notebooks.
TEST(CatalogueTest, EveryExerciseCitesThePublicNotebookCellsItMirrors) {
    for (const auto& exercise : catalogue().at("exercises")) {
        const auto id = exercise.at("id").get<std::string>();
        const auto stub = read_stub(exercise);
        const auto header = read_text(source_dir / exercise.at("header").get<std::string>());
        ASSERT_FALSE(exercise.value("notebook", nlohmann::json::array()).empty())
            << "exercise " << id << " cites no notebook cell";
        for (const auto& cell : exercise.at("notebook")) {
            const auto url = cell.at("url").get<std::string>();
            EXPECT_THAT(url, ::testing::StartsWith("https://github.com/")) << id;
            for (const char* field : {"function", "cell", "call"}) {
                const auto text = cell.at(field).get<std::string>();
                EXPECT_FALSE(text.empty()) << id << ": " << field;
                EXPECT_EQ(text.find('\n'), std::string::npos) << id << ": " << field;
            }
            EXPECT_THAT(stub, ::testing::HasSubstr(url)) << id << "'s stub does not cite it";
            EXPECT_THAT(header, ::testing::HasSubstr(url)) << id << "'s header does not cite it";
        }
    }
}

TEST(CatalogueTest, NoTestStatesATensorSize) {
    // Sizes come from a case's inputs; a literal 6 or 3 fits the notebook's inputs only.
    // A rank (input<2>) or an axis (x.shape(2), xt::sum(t, {2})) is part of the API, not a
    // size.
    static const std::regex size_literal(R"(\b([2-9]|1[0-9])[0-9]*\b)");
    static const std::regex rank(R"(<[0-9]>|shape\([0-9]\)|, \{[0-9]\}\))");
    for (const auto& exercise : catalogue().at("exercises")) {
        const auto test = exercise.at("test").get<std::string>();
        const auto code = std::regex_replace(code_only(read_text(source_dir / test)), rank, "<N>");
        std::smatch found;
        EXPECT_FALSE(std::regex_search(code, found, size_literal))
            << test << " states the number " << found.str() << "; derive it from the inputs";
    }
}

}  // namespace
