// kit/core/src/judge.cpp — verdicts from result files, with no student code in the process.
#include "kit/judge.hpp"

#include "kit/laws.hpp"
#include "kit/npy.hpp"
#include "kit/verdict_json.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <stdexcept>
#include <unistd.h>

namespace attn::kit {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t max_error_line = 400;    // bytes of error.txt's line shown
constexpr std::size_t max_npy_problem = 1000;  // bytes of an npy_error shown (it names a path)

// A failure the judge found itself (no result, a malformed file): nothing of the expected
// tensor in it, so the same words for a hidden case.
comparison failed(std::string reason) {
    comparison verdict;
    verdict.reason = std::move(reason);
    verdict.withheld_reason = verdict.reason;
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

// The runner's failure file for a stub's throw (attn::not_implemented).
constexpr const char* stub_file = "not_implemented.txt";

// The first line of the runner's error.txt (or `file`), printable, or "" if there is none.
std::string runner_error(const fs::path& folder, const fs::path& results,
                         const std::string& file = "error.txt") {
    const auto path = folder / file;
    if (!is_plain_file_inside(path, results)) return "";
    std::string text;
    try {
        text = read_file_start(path, max_error_line + 4);  // enough to know it goes on
    } catch (const npy_error&) {
        return "";
    }
    return printable_line(text.substr(0, text.find('\n')), max_error_line);
}

// `text` with every mention of the folder `results/` taken out: "02_x/case/w.npy: ...".
std::string relative_to(std::string text, const fs::path& results) {
    const std::string prefix = (results / "").string();
    for (auto at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at)) {
        text.erase(at, prefix.size());
    }
    return text;
}

comparison judge_output(const golden_store& cases, const case_entry& entry, const std::string& name,
                        const fs::path& results) {
    const auto folder = results / entry.path;
    const auto path = folder / (name + ".npy");
    const expected_golden expected = cases.expected(entry.file(name));
    if (!is_plain_file_inside(path, results)) {
        std::error_code ignored;  // a status that cannot be read: as good as absent
        if (fs::exists(fs::symlink_status(path, ignored))) {
            return failed("the result " + name + ".npy is not a plain file in the result folder");
        }
        std::string error = runner_error(folder, results);
        if (error.empty()) error = runner_error(folder, results, stub_file);
        if (!error.empty()) return failed(error);
        return failed("no result: the program stopped before it produced " + name +
                      " (a crash, a time-out or an exit?)");
    }
    try {
        // Parsed under the name the student's program wrote ("03_x/case/weights.npy"); only a
        // file that cannot be read at all is named by its path, taken out below.
        const auto as_written = (fs::path(entry.path) / (name + ".npy")).generic_string();
        return compare(parse_npy(read_file_bytes(path), as_written), expected);
    } catch (const npy_error& error) {
        return failed(printable_line(relative_to(error.what(), results), max_npy_problem));
    }
}

// The verdict on one law of the case (kit/laws.hpp), from the case's own result of the law's
// output and the variant's, both untrusted. None where the case's own result is missing,
// unreadable or not of the golden's shape and dtype: its comparison has failed already.
std::optional<comparison> judge_law(const golden_store& cases, const case_entry& entry,
                                    const case_law& law, const fs::path& results) {
    const auto folder = results / entry.path;
    const auto base_path = folder / (law.output + ".npy");
    if (!is_plain_file_inside(base_path, results)) return std::nullopt;
    any_tensor base;
    try {
        base = parse_npy(read_file_bytes(base_path), entry.file(law.output));
    } catch (const npy_error&) {
        return std::nullopt;
    }
    const expected_golden golden = cases.expected(entry.file(law.output));
    const auto shape = shape_of(base);
    if (base.index() != golden.tensor.index() || shape != shape_of(golden.tensor) ||
        law.output_axis >= shape.size()) {
        return std::nullopt;
    }
    const std::size_t size = shape[law.output_axis];
    const std::string name = law_output_name(law) + ".npy";
    const auto path = folder / name;
    if (!is_plain_file_inside(path, results)) {
        std::error_code ignored;
        if (fs::exists(fs::symlink_status(path, ignored))) {
            return law_comparison(law_threw(
                law, size, "its result " + name + " is not a plain file in the result folder"));
        }
        const std::string error = runner_error(folder, results, "law." + law.name + ".error.txt");
        return law_comparison(error.empty() ? law_without_result(law, size)
                                            : law_threw(law, size, error));
    }
    try {
        const auto as_written = (fs::path(entry.path) / name).generic_string();
        const any_tensor variant = parse_npy(read_file_bytes(path), as_written);
        return law_comparison(check_law(law, base, variant, golden));
    } catch (const npy_error& error) {
        return law_comparison(law_threw(
            law, size, printable_line(relative_to(error.what(), results), max_npy_problem)));
    }
}

}  // namespace

std::vector<case_verdict> judge(const golden_store& cases, const fs::path& results,
                                const std::string& exercise, expected_values shown) {
    std::vector<case_verdict> verdicts;
    for (const case_entry* entry : cases.cases(exercise)) {
        verdicts.push_back(judge_case(cases, *entry, results, shown));
    }
    return verdicts;
}

case_verdict judge_case(const golden_store& cases, const case_entry& entry, const fs::path& results,
                        expected_values shown) {
    case_verdict verdict{entry.path, entry.exercise, entry.kind, true, false, {}};
    for (const auto& name : entry.expected) {
        comparison output = judge_output(cases, entry, name, results);
        if (shown == expected_values::withheld) {
            // Fails closed: a failure without a withheld reason says only that it differs.
            if (!output.passed) {
                output.reason = output.withheld_reason.empty()
                                    ? "the result differs from the expected tensor"
                                    : output.withheld_reason;
            }
            output.diagnosis = output.withheld_diagnosis;
            output.details.clear();
            output.expected_shape.clear();
            output.expected_dtype.clear();
            for (auto& worst : output.worst) worst.expected = 0;
        }
        verdict.passed = verdict.passed && output.passed;
        verdict.outputs.push_back({name, std::move(output)});
    }
    // Known from which file the runner wrote, never from what it says: a student's own
    // exception that says "not implemented" is an ordinary failure.
    verdict.not_implemented =
        !verdict.passed && is_plain_file_inside(results / entry.path / stub_file, results);
    // Each law after the outputs, as an output of its own ("law.causal.context"): its
    // sentence states nothing of the expected tensor, hidden case or not.
    for (const case_law& law : entry.laws) {
        auto output = judge_law(cases, entry, law, results);
        if (!output) continue;
        if (shown == expected_values::withheld) output->details.clear();
        verdict.passed = verdict.passed && output->passed;
        verdict.outputs.push_back({law_output_name(law), std::move(*output)});
    }
    return verdict;
}

std::string printable_line(const std::string& text, std::size_t max_bytes) {
    std::size_t end = text.size();
    if (end > max_bytes) {
        end = max_bytes;
        // Back to the start of a UTF-8 sequence cut in two (at most 3 continuation bytes).
        for (int back = 0;
             back < 3 && end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80; ++back)
            --end;
    }
    std::string line;
    line.reserve(end + 3);
    for (std::size_t i = 0; i < end; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        const auto next = i + 1 < end ? static_cast<unsigned char>(text[i + 1]) : 0;
        if (c == 0xC2 && next >= 0x80 && next <= 0x9F) {  // U+0080-U+009F, C1 controls
            line += '?';
            ++i;
        } else {
            line += c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c);
        }
    }
    return end < text.size() ? line + "…" : line;
}

void write_file_atomically(const fs::path& path, const std::string& text) {
    const std::string name = path.string();
    const std::string temporary = name + ".tmp";
    const auto fail = [&](int error) {
        ::unlink(temporary.c_str());
        return std::runtime_error("could not write " + name + ": " + std::strerror(error));
    };
    // Not fsync'd: the rename keeps readers from a partial file, which is what matters here.
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        const int error = errno;
        throw std::runtime_error("could not write " + name + ": " + std::strerror(error));
    }
    for (std::size_t written = 0; written < text.size();) {
        const ssize_t done = ::write(fd, text.data() + written, text.size() - written);
        if (done < 0 && errno == EINTR) continue;
        if (done <= 0) {
            const int error = done < 0 ? errno : ENOSPC;
            ::close(fd);
            throw fail(error);
        }
        written += static_cast<std::size_t>(done);
    }
    if (::close(fd) != 0) throw fail(errno);  // NFS and some full disks report only here
    if (::rename(temporary.c_str(), name.c_str()) != 0) throw fail(errno);
}

std::string verdicts_json(const golden_store& cases, const std::vector<case_verdict>& verdicts) {
    nlohmann::json json = {{"schema", "attn-kit/judge-verdicts"},
                           {"version", verdict_schema_version},
                           {"case_set", cases.case_set()},
                           {"cases", nlohmann::json::array()}};
    std::size_t passed = 0;
    for (const auto& verdict : verdicts) {
        nlohmann::json outputs = nlohmann::json::array();
        for (const auto& [name, result] : verdict.outputs) {
            nlohmann::json output = comparison_json(result);
            output["name"] = name;
            outputs.push_back(std::move(output));
        }
        json["cases"].push_back({{"case", verdict.case_path},
                                 {"exercise", verdict.exercise},
                                 {"kind", verdict.kind},
                                 {"passed", verdict.passed},
                                 {"not_implemented", verdict.not_implemented},
                                 {"outputs", outputs}});
        passed += verdict.passed;
    }
    json["passed"] = passed;
    json["failed"] = verdicts.size() - passed;
    // Text the student's process wrote may be invalid UTF-8: replace, never throw.
    return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace attn::kit
