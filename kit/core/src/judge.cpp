// kit/core/src/judge.cpp — verdicts from result files, with no student code in the process.
#include "kit/judge.hpp"

#include "kit/npy.hpp"

#include <nlohmann/json.hpp>

#include <fstream>

namespace attn::kit {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t max_error_line = 400;  // characters of error.txt shown

comparison failed(std::string reason) {
    comparison verdict;
    verdict.reason = std::move(reason);
    return verdict;
}

// True if `path` is a regular file (not a link) whose real location is inside `root`.
bool is_plain_file_inside(const fs::path& path, const fs::path& root) {
    std::error_code error;
    if (!fs::is_regular_file(fs::symlink_status(path, error))) return false;
    const auto real = fs::weakly_canonical(path, error).generic_string();
    const auto base = fs::weakly_canonical(root, error).generic_string() + "/";
    return !error && real.compare(0, base.size(), base) == 0;
}

// The first line of the runner's error.txt, or "" if there is none.
std::string runner_error(const fs::path& folder, const fs::path& results) {
    const auto path = folder / "error.txt";
    if (!is_plain_file_inside(path, results)) return "";
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line.size() > max_error_line ? line.substr(0, max_error_line) + "…" : line;
}

comparison judge_output(const golden_store& cases, const case_entry& entry, const std::string& name,
                        const fs::path& results) {
    const auto folder = results / entry.path;
    const auto path = folder / (name + ".npy");
    const expected_golden expected = cases.expected(entry.file(name));
    if (!is_plain_file_inside(path, results)) {
        if (fs::exists(fs::symlink_status(path))) {
            return failed("the result " + name + ".npy is not a plain file in the result folder");
        }
        const std::string error = runner_error(folder, results);
        if (!error.empty()) return failed(error);
        return failed("no result: the program stopped before it produced " + name +
                      " (a crash, a time-out or an exit?)");
    }
    try {
        return compare(read_npy(path), expected);
    } catch (const npy_error& error) {
        return failed(error.what());
    }
}

}  // namespace

std::vector<case_verdict> judge(const golden_store& cases, const fs::path& results,
                                const std::string& exercise) {
    std::vector<case_verdict> verdicts;
    for (const case_entry* entry : cases.cases(exercise)) {
        verdicts.push_back(judge_case(cases, *entry, results));
    }
    return verdicts;
}

case_verdict judge_case(const golden_store& cases, const case_entry& entry,
                        const fs::path& results) {
    case_verdict verdict{entry.path, entry.exercise, entry.kind, true, {}};
    for (const auto& name : entry.expected) {
        verdict.outputs.push_back({name, judge_output(cases, entry, name, results)});
        verdict.passed = verdict.passed && verdict.outputs.back().verdict.passed;
    }
    return verdict;
}

std::string verdicts_json(const golden_store& cases, const std::vector<case_verdict>& verdicts) {
    nlohmann::json json = {{"case_set", cases.case_set()}, {"cases", nlohmann::json::array()}};
    std::size_t passed = 0;
    for (const auto& verdict : verdicts) {
        nlohmann::json outputs = nlohmann::json::array();
        for (const auto& [name, result] : verdict.outputs) {
            outputs.push_back({{"name", name},
                               {"passed", result.passed},
                               {"reason", result.reason},
                               {"mistake", result.mistake},
                               {"hint", result.hint},
                               {"details", result.details}});
        }
        json["cases"].push_back({{"case", verdict.case_path},
                                 {"exercise", verdict.exercise},
                                 {"kind", verdict.kind},
                                 {"passed", verdict.passed},
                                 {"outputs", outputs}});
        passed += verdict.passed;
    }
    json["passed"] = passed;
    json["failed"] = verdicts.size() - passed;
    // Text the student's process wrote may be invalid UTF-8: replace, never throw.
    return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace attn::kit
