// kit/core/src/judge.cpp — verdicts from result files, with no student code in the process.
#include "kit/judge.hpp"

#include "kit/laws.hpp"
#include "kit/npy.hpp"
#include "kit/verdict_json.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <set>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

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

// The runner's failure file for a stub's throw (attn::not_implemented).
constexpr const char* stub_file = "not_implemented.txt";

// The first line of the runner's error.txt (or `file`) in the case's folder, printable, or ""
// if there is none.
std::string runner_error(const result_folder& results, const fs::path& folder,
                         const std::string& file = "error.txt") {
    if (results.look(folder / file) != result_folder::entry::plain) return "";
    std::string text;
    try {
        text = results.read(folder / file, max_error_line + 4, false);  // enough to know it goes on
    } catch (const npy_error&) {
        return "";
    }
    return printable_line(text.substr(0, text.find('\n')), max_error_line);
}

comparison judge_output(const golden_store& cases, const case_entry& entry, const std::string& name,
                        const result_folder& results) {
    const fs::path folder = entry.path;
    const auto path = folder / (name + ".npy");
    const expected_golden expected = cases.expected(entry.file(name));
    switch (results.look(path)) {
        case result_folder::entry::other:
            return failed("the result " + name +
                          ".npy is not a plain file of the program's in the result folder");
        case result_folder::entry::absent: {
            std::string error = runner_error(results, folder);
            if (error.empty()) error = runner_error(results, folder, stub_file);
            if (!error.empty()) return failed(error);
            return failed("no result: the program stopped before it produced " + name +
                          " (a crash, a time-out or an exit?)");
        }
        case result_folder::entry::plain:
            break;
    }
    try {
        // Parsed under the name the student's program wrote ("03_x/case/weights.npy").
        return compare(parse_npy(results.read(path, max_npy_bytes, true), path.generic_string()),
                       expected);
    } catch (const npy_error& error) {
        return failed(printable_line(error.what(), max_npy_problem));
    }
}

// The verdict on one law of the case (kit/laws.hpp), from the case's own result of the law's
// output and the variant's, both untrusted. None where the case's own result is missing,
// unreadable or not of the golden's shape and dtype: its comparison has failed already.
std::optional<comparison> judge_law(const golden_store& cases, const case_entry& entry,
                                    const case_law& law, const result_folder& results) {
    const fs::path folder = entry.path;
    const auto base_path = folder / (law.output + ".npy");
    if (results.look(base_path) != result_folder::entry::plain) return std::nullopt;
    any_tensor base;
    try {
        base = parse_npy(results.read(base_path, max_npy_bytes, true), entry.file(law.output));
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
    switch (results.look(path)) {
        case result_folder::entry::other:
            return law_comparison(
                law_threw(law, size,
                          "its result " + name +
                              " is not a plain file of the program's in the result folder"));
        case result_folder::entry::absent: {
            const std::string error =
                runner_error(results, folder, "law." + law.name + ".error.txt");
            return law_comparison(error.empty() ? law_without_result(law, size)
                                                : law_threw(law, size, error));
        }
        case result_folder::entry::plain:
            break;
    }
    try {
        const any_tensor variant =
            parse_npy(results.read(path, max_npy_bytes, true), path.generic_string());
        return law_comparison(check_law(law, base, variant, golden));
    } catch (const npy_error& error) {
        return law_comparison(law_threw(law, size, printable_line(error.what(), max_npy_problem)));
    }
}

}  // namespace

std::vector<case_verdict> judge(const golden_store& cases, const result_folder& results,
                                const std::string& exercise, expected_values shown) {
    std::vector<case_verdict> verdicts;
    for (const case_entry* entry : cases.cases(exercise)) {
        verdicts.push_back(judge_case(cases, *entry, results, shown));
    }
    // Names decided over every case judged, as the test program decides them (decide_names).
    std::set<std::pair<std::string, std::string>> ruled_out;  // (kind, mistake)
    std::vector<case_comparison> compared;
    for (auto& verdict : verdicts) {
        for (auto& output : verdict.outputs) {
            for (const auto& name : output.verdict.ruled_out) ruled_out.emplace(verdict.kind, name);
            compared.push_back({verdict.kind, verdict.case_path, &output.verdict});
        }
    }
    decide_names(compared, ruled_out);
    return verdicts;
}

case_verdict judge_case(const golden_store& cases, const case_entry& entry,
                        const result_folder& results, expected_values shown) {
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
            output.diagnosis_id = output.withheld_diagnosis_id;
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
    verdict.not_implemented = !verdict.passed && results.look(fs::path(entry.path) / stub_file) ==
                                                     result_folder::entry::plain;
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

result_folder::result_folder(const fs::path& path, std::optional<uid_t> owner)
    : path_(path), owner_(owner) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd_ < 0) {
        const int error = errno;
        throw std::runtime_error("the result folder " + path.string() +
                                 (error == ELOOP || error == ENOTDIR
                                      ? " is not a folder (a symbolic link?); the judge "
                                        "follows none"
                                      : " cannot be opened: " + std::string(std::strerror(error))));
    }
    struct stat status {};
    if (::fstat(fd_, &status) != 0 || (owner_ && status.st_uid != *owner_)) {
        ::close(fd_);
        throw std::runtime_error("the result folder " + path.string() +
                                 " is not the runner's own (uid " +
                                 std::to_string(owner_.value_or(0)) + ")");
    }
}

result_folder::~result_folder() { ::close(fd_); }

int result_folder::open_below(const fs::path& relative, std::string& problem) const {
    std::vector<std::string> parts;
    for (const auto& part : relative.lexically_normal()) parts.push_back(part.string());
    if (parts.empty() || relative.is_absolute() ||
        std::find(parts.begin(), parts.end(), "..") != parts.end()) {
        problem = "is not a name inside the result folder";
        return -1;
    }
    int folder = fd_;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const bool last = i + 1 == parts.size();
        const int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (last ? O_NONBLOCK : O_DIRECTORY);
        const int fd = ::openat(folder, parts[i].c_str(), flags);
        const int error = errno;
        if (folder != fd_) ::close(folder);
        if (fd < 0) {
            problem = error == ENOENT
                          ? ""
                          : "is not a plain file (" + std::string(std::strerror(error)) + ")";
            return -1;
        }
        struct stat status {};
        if (::fstat(fd, &status) != 0 || (owner_ && status.st_uid != *owner_) ||
            (last && (!S_ISREG(status.st_mode) || status.st_nlink != 1))) {
            ::close(fd);
            problem = "is not a plain file of the program's";
            return -1;
        }
        folder = fd;
    }
    return folder;
}

result_folder::entry result_folder::look(const fs::path& relative) const {
    std::string problem;
    const int fd = open_below(relative, problem);
    if (fd >= 0) ::close(fd);
    return fd >= 0 ? entry::plain : problem.empty() ? entry::absent : entry::other;
}

std::string result_folder::read(const fs::path& relative, std::size_t limit, bool whole) const {
    std::string problem;
    const int fd = open_below(relative, problem);
    if (fd < 0) {
        throw npy_error(relative.generic_string() + " " +
                        (problem.empty() ? "does not exist" : problem));
    }
    try {
        std::string bytes = read_descriptor(fd, relative.generic_string(), limit, whole);
        ::close(fd);
        return bytes;
    } catch (...) {
        ::close(fd);
        throw;
    }
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
