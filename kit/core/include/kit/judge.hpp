// kit/judge.hpp — a runner's result folder judged against a case set's expected tensors.
//
// The judge links no student code and trusts nothing the student's process wrote: a result
// file is read only through a result_folder (below): every component opened from the folder's
// own descriptor without following a link, a regular file with one name, of the runner's uid
// where the grader says which; then through the bounds-checked .npy reader, and compared by the
// same kit/compare.hpp the in-process tests use, so both give the same verdict and diagnosis. Text
// taken from the result folder (error.txt's line, what a forged header says) is quoted as one
// printable line, capped.
#pragma once

#include "kit/compare.hpp"
#include "kit/golden_store.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace attn::kit {

// The folder a runner wrote, held open: the judge reads below this descriptor, so a name in
// the folder's path that changes after it was opened (a rename, a link put in its place) can
// no longer send the judge elsewhere. The grader creates the folder in one of its own that the
// runner cannot write, and names the runner's uid as `owner`.
class result_folder {
public:
    // Opens `path`; throws std::runtime_error naming the problem if it is a symbolic link, not
    // a folder, or (with `owner`) not that uid's.
    explicit result_folder(const std::filesystem::path& path,
                           std::optional<uid_t> owner = std::nullopt);
    ~result_folder();
    result_folder(const result_folder&) = delete;
    result_folder& operator=(const result_folder&) = delete;

    enum class entry { absent, plain, other };
    // What `relative` ("03_softmax/rows/weights.npy") is, each of its folders opened without
    // following a link: `plain` for a regular file with one name (no hard link to another)
    // of the owner's; `other` for anything else there (a link, a folder, a FIFO, another
    // uid's file, a folder on the way that is a link).
    entry look(const std::filesystem::path& relative) const;
    // Its bytes, read as read_file_bytes (`whole`, at most `limit`) or read_file_start reads;
    // throws npy_error if it is not `plain`.
    std::string read(const std::filesystem::path& relative, std::size_t limit, bool whole) const;
    const std::filesystem::path& path() const { return path_; }

private:
    int open_below(const std::filesystem::path& relative, std::string& problem) const;

    std::filesystem::path path_;
    std::optional<uid_t> owner_;
    int fd_ = -1;
};

struct output_verdict {
    std::string name;  // "weights"
    comparison verdict;
};

struct case_verdict {
    std::string case_path;  // "03_softmax/rows_notebook"
    std::string exercise;
    std::string kind;
    bool passed = false;  // every output passed
    // The case failed because its call is still the kit's stub: the runner caught
    // attn::not_implemented and wrote the failure as not_implemented.txt, not error.txt.
    bool not_implemented = false;
    std::vector<output_verdict> outputs;
};

// What a verdict may say of the expected tensors: `withheld` for a hidden case set, whose
// expected values, shapes and dtypes must never reach a student (each failure's reason is then
// the comparison's withheld_reason, or only "the result differs from the expected tensor"
// where it has none, and there are no details; the mistake and its hint stay).
enum class expected_values { shown, withheld };

// Every case of `cases` (of `exercise`, if not empty), judged from `results`, the folder a
// runner wrote. A missing result fails with what the runner left instead: the call's
// failure (error.txt, or not_implemented.txt for a stub, which marks the case
// not_implemented), or nothing (the program stopped before that case). A result file is
// named relative to `results` (the grader's folders are nobody's business). The names are
// decided over every case at once: one that another case of the same kind rules out is taken
// back (take_back_name), so every reader shows the same names.
std::vector<case_verdict> judge(const golden_store& cases, const result_folder& results,
                                const std::string& exercise = "",
                                expected_values shown = expected_values::shown);

// One case, judged from `results`, alone: its names are not checked against other cases.
case_verdict judge_case(const golden_store& cases, const case_entry& entry,
                        const result_folder& results,
                        expected_values shown = expected_values::shown);

// `text` as one line that is safe to print: each control character (below 0x20, 0x7f, and
// U+0080-U+009F, which a terminal may read as an escape) becomes '?', and text beyond
// `max_bytes` is cut, never inside a UTF-8 sequence, and marked with "…".
std::string printable_line(const std::string& text, std::size_t max_bytes);

// Writes `text` to FILE.tmp beside `path`, then renames it to `path`: a reader never sees a
// half-written file. Throws std::runtime_error("could not write PATH: reason") on any failure
// (a missing folder, a full disk), leaving no FILE.tmp behind.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

// The verdicts as JSON text: {"case_set": ..., "passed": n, "failed": n, "cases": [...]}.
std::string verdicts_json(const golden_store& cases, const std::vector<case_verdict>& verdicts);

}  // namespace attn::kit
