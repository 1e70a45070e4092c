// kit/testing/src/main.cpp — main() of every exercise's test program: a test or a runner.
//
//   Any mode: [--attn-cpu-limit=SECONDS]      its CPU time limit (limit_cpu_time, below); BLAS
//                                            on one thread (one_blas_thread)
//   test_ex03_exercises [gtest flags]        every case of the kit's case set as a GoogleTest
//     [--attn-verdicts=FILE] [--attn-quiet]  test, plus the file's plain TESTs. FILE: the
//                                            verdict stream (kit/verdicts.hpp), what tools/kit
//                                            reads; --attn-quiet: no GoogleTest output, so
//                                            what the program prints is the code's own
//   test_ex03_exercises --attn-run-cases=DIR --attn-results=OUT [--attn-case=PATH[,PATH...]]
//                                            the runner (kit/runner.hpp): results only, of
//                                            every case or of the listed case paths
//                                            (03_softmax/rows_notebook,...), in the usual
//                                            order; a listed path this program does not run
//                                            is named on stderr and makes the exit status 2.
//     The runner writes OUT/runner-started when main() starts, and before each case
//     OUT/current-case (the case's path and a newline, truncated and closed first): after a
//     crash or a time-out it names the case that was running. Both only help tools/grade
//     decide what to run again; the code under test could write them, so no verdict rests
//     on them.
//   test_ex03_exercises --attn-show[=CASE] [--attn-show-json=FILE]
//                                            one case of the kit's case set shown: its inputs,
//                                            its expected outputs and the code's own, printed
//                                            as PyTorch prints them (kit/torch_format.hpp).
//                                            CASE: a case name (rows_notebook) or path
//                                            (03_softmax/rows_notebook); without it, the first
//                                            case named *notebook*. FILE: the same as JSON
//                                            Lines (below, docs/verdicts.md), what `tools/kit
//                                            show` reads; stdout then holds only what the
//                                            code printed.
#include "kit/runner.hpp"
#include "kit/student_code.hpp"
#include "kit/testing.hpp"
#include "kit/throw_site.hpp"
#include "kit/torch_format.hpp"
#include "kit/verdicts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <utility>
#include <vector>

namespace attn::kit {
namespace {

// A GoogleTest failure at file:line whose facts go to the verdict stream.
void fail_at(const char* file, int line, const std::string& text, failure_facts facts) {
    note_failure(text, std::move(facts));
    ADD_FAILURE_AT(file, line) << text;
}

// The first value of `again` whose bits differ from `first`'s, as a failed comparison of the
// two runs (got: the second run's value, expected: the first's), or a passed one where every
// bit is the same. NaN equals a NaN of the same bits.
comparison run_to_run(const any_tensor& first, const any_tensor& again) {
    comparison compared;
    compared.got_shape = shape_of(again);
    compared.expected_shape = shape_of(first);
    compared.got_dtype = dtype_name(again);
    compared.expected_dtype = dtype_name(first);
    compared.passed = true;
    if (compared.got_shape != compared.expected_shape || first.index() != again.index()) {
        compared.passed = false;
        compared.reason = "the two runs returned tensors of different shapes or dtypes";
    } else {
        const auto a = values_of(first), b = values_of(again);
        std::size_t first_difference = a.size();
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (std::memcmp(&a[i], &b[i], sizeof(double)) == 0) continue;
            if (std::isnan(a[i]) && std::isnan(b[i])) continue;
            if (first_difference == a.size()) first_difference = i;
            ++compared.differing;
        }
        if (compared.differing == 0) return compared;
        compared.passed = false;
        std::vector<std::size_t> index(compared.got_shape.size());
        for (std::size_t d = index.size(), rest = first_difference; d-- > 0;) {
            index[d] = rest % compared.got_shape[d];
            rest /= compared.got_shape[d];
        }
        compared.worst = {{index, b[first_difference], a[first_difference],
                           std::numeric_limits<double>::infinity()}};
        std::ostringstream reason;
        reason.precision(9);
        reason << compared.differing << " of " << a.size()
               << " values differ between the two runs; the first at [";
        for (std::size_t d = 0; d < index.size(); ++d) reason << (d ? ", " : "") << index[d];
        reason << "]: " << a[first_difference] << ", then " << b[first_difference];
        compared.reason = reason.str();
    }
    compared.mistake = "results differ from run to run: threads write the same memory";
    compared.mistake_id = compared.mistake_family = "race";
    compared.hint =
        "each row must write only its own context row and keep its running values in local "
        "variables: a buffer shared by every row (a member pointer, a static or a global "
        "array) is written by several threads at once.";
    compared.diagnosis =
        "the same call on the same inputs returned different values: a race "
        "between threads, or memory read before it was written";
    compared.withheld_diagnosis = compared.diagnosis;
    compared.diagnosis_id = compared.withheld_diagnosis_id = "run_to_run";
    compared.withheld_reason = compared.reason;
    return compared;
}

// A case as one GoogleTest test: each output compared with its golden where it is produced.
class case_test : public ::testing::Test {
public:
    case_test(const case_kind& kind, const case_entry& entry) : kind_(kind), entry_(entry) {}

    void TestBody() override {
        RecordProperty("attn_case", entry_.path);  // tools/kit: a value case, not a check
        assertion_context context(golden_store::instance(), entry_);
        try {
            run_case(kind_, context);
            if (!context.stopped()) check_laws(context);
            context.report_deferred();
            context.require_every_output(kind_);
        } catch (const std::exception& error) {  // a broken case set: the kit's defect
            context.report_deferred();
            fail_at(kind_.file, kind_.line, error.what(), {"kit", "", {}});
        }
    }

private:
    // A law's variant of the case (kit/laws.hpp): keeps the law's output, or the failure of a
    // call that threw; compares nothing.
    class variant_context : public case_context {
    public:
        variant_context(const golden_store& store, const case_entry& entry, const case_law& law)
            : case_context(store, entry), law_(law) {
            serve_variant_of(law_);
        }
        std::optional<any_tensor> output;
        std::string failure;  // the call's one-line failure, if it threw

    protected:
        void on_result(const std::string& name, const std::string&, const char*, int,
                       const any_tensor& value) override {
            if (name == law_.output && !output) output = value;
        }
        void on_throw(const call_failure& thrown, const char*, int) override {
            failure = thrown.line.substr(0, thrown.line.find('\n'));
        }

    private:
        const case_law& law_;
    };

    // After the case's own run: each law's variant, run and checked against the case's own
    // result. A broken law is one failure of kind "law", at the line of the output's call.
    template <class Context>
    void check_laws(Context& context) {
        for (const case_law& law : entry_.laws) {
            const auto* base = context.result_of(law.output);
            if (base == nullptr) continue;  // never produced: require_every_output says so
            const expected_golden golden =
                golden_store::instance().expected(entry_.file(law.output));
            const auto shape = shape_of(base->value);
            // A result of another shape or dtype than the golden's failed its comparison; the
            // judge checks no law on it either.
            if (base->value.index() != golden.tensor.index() || shape != shape_of(golden.tensor) ||
                law.output_axis >= shape.size()) {
                continue;
            }
            const std::size_t size = shape[law.output_axis];
            variant_context variant(golden_store::instance(), entry_, law);
            run_case(kind_, variant);
            const law_verdict verdict =
                !variant.failure.empty() ? law_threw(law, size, variant.failure)
                : variant.output         ? check_law(law, base->value, *variant.output, golden)
                                         : law_without_result(law, size);
            if (verdict.passed) continue;
            fail_at(base->file, base->line, verdict.reason + verdict.details,
                    {"law", law_output_name(law), law_comparison(verdict)});
        }
    }

    class assertion_context : public case_context {
    public:
        using case_context::case_context;

        // A result the case produced, where its call is written.
        struct produced_result {
            any_tensor value;
            const char* file;
            int line;
        };

        bool stopped() const { return stopped_; }

        const produced_result* result_of(const std::string& name) const {
            const auto found = results_.find(name);
            return found == results_.end() ? nullptr : &found->second;
        }

        // The mismatches held back until the laws were checked (report_mismatch).
        void report_deferred() {
            for (auto& [file, line, text, facts] : deferred_) fail_at(file, line, text, facts);
            deferred_.clear();
        }

        void require_every_output(const case_kind& kind) const {
            if (stopped_) return;
            for (const auto& name : entry_.expected) {
                if (std::count(produced_.begin(), produced_.end(), name) == 0) {
                    fail_at(kind.file, kind.line,
                            "case " + entry_.path + " expects the output " + name +
                                ", which ATTN_CASE(" + kind.kind + ") never produces",
                            {"kit", "", {}});
                }
            }
        }

    protected:
        void on_result(const std::string& name, const std::string& call, const char* file, int line,
                       const any_tensor& value) override {
            produced_.push_back(name);
            const auto& expected = entry_.expected;
            if (std::find(expected.begin(), expected.end(), name) == expected.end()) {
                fail_at(file, line,
                        "case " + entry_.path + " records no output " + name +
                            "; the test and tools/record disagree",
                        {"kit", "", {}});
                return;
            }
            const expected_golden golden = store_.expected(entry_.file(name));
            const comparison compared = compare(value, golden);
            note_ruled_out(compared.ruled_out);
            if (!entry_.laws.empty()) results_.insert({name, {value, file, line}});
            if (!compared.passed) {
                failure_facts facts{"mismatch", name, compared};
                facts.matrix =
                    attention_matrix_of(store_.case_set(), name, value, golden.tensor, compared);
                facts.call = student_words(call);
                facts.description = golden.source;
                if (!compared.mistake.empty()) {  // should another case rule the name out
                    facts.unnamed_text =
                        explain(call, golden, take_back_name(compared), entry_.name());
                }
                report_mismatch(file, line, explain(call, golden, compared, entry_.name()),
                                std::move(facts));
            }
        }
        // Two runs of one call: a difference between them is the failure to read first (a
        // race), then each is compared with its golden.
        void on_repeated(const std::string& name, const std::string& again_name,
                         const std::string& call, const char* file, int line,
                         const any_tensor& first, const any_tensor& again) override {
            const comparison compared = run_to_run(first, again);
            if (!compared.passed) {
                const std::string text = "`" + student_words(call) +
                                         "`, run twice on the same inputs: " + compared.mistake +
                                         " (" + compared.reason + ")\n" + compared.hint;
                fail_at(file, line, text, {"mismatch", again_name, compared});
            }
            case_context::on_repeated(name, again_name, call, file, line, first, again);
        }
        void on_throw(const call_failure& failure, const char* file, int line) override {
            stopped_ = true;
            failure_facts facts{failure.stub ? "not_implemented" : "threw", "", {}};
            if (!failure.finding_id.empty()) {  // named as a recorded mistake is
                facts.kind = "kernel";
                facts.compared.mistake = failure.finding;
                facts.compared.mistake_id = failure.finding_id;
                facts.compared.mistake_family = failure.finding_id;
            }
            facts.alike = failure.alike;
            facts.points_to_garbage = failure.points_to_garbage;
            fail_at(file, line, failure.line, std::move(facts));
        }

    private:
        // A mismatch that names a recorded mistake is reported at once; from the first one
        // that names none on, they wait for the laws (report_deferred), in their order: a
        // broken law ("the future leaks in") says more than "5 of 24 values differ", and the
        // first failure is what the status line shows.
        void report_mismatch(const char* file, int line, const std::string& text,
                             failure_facts facts) {
            if (!deferred_.empty() || (facts.compared.mistake.empty() && !entry_.laws.empty())) {
                deferred_.push_back({file, line, text, std::move(facts)});
            } else {
                fail_at(file, line, text, std::move(facts));
            }
        }

        struct deferred_failure {
            const char* file;
            int line;
            std::string text;
            failure_facts facts;
        };

        std::vector<std::string> produced_;
        std::map<std::string, produced_result> results_;  // cases with laws: their results
        std::vector<deferred_failure> deferred_;
        bool stopped_ = false;
    };

    const case_kind& kind_;
    const case_entry& entry_;
};

// A test that fails with `message`: how a broken case set or test file shows in the report.
class failing_test : public ::testing::Test {
public:
    explicit failing_test(std::string message) : message_(std::move(message)) {}
    void TestBody() override { fail_at(__FILE__, __LINE__, message_, {"kit", "", {}}); }

private:
    std::string message_;
};

void register_failure(const char* suite, const std::string& name, const std::string& message) {
    ::testing::RegisterTest(suite, name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [message]() -> ::testing::Test* { return new failing_test(message); });
}

// One test per case of each registered kind; a kind with no case, or a case of this
// program's exercise with no kind, is a kit defect and fails loudly.
void register_case_tests() {
    const golden_store* store = nullptr;
    try {
        store = &golden_store::instance();
    } catch (const golden_error& error) {
        register_failure("Goldens", "load", error.what());
        return;
    }
    std::set<std::string> exercises, kinds;
    for (const case_kind& kind : case_kinds()) {
        if (!kinds.insert(kind.exercise + "/" + kind.kind).second) {
            register_failure(kind.kind.c_str(), "defined_once",
                             "ATTN_CASE(" + kind.kind + ") is defined twice");
        }
        exercises.insert(kind.exercise);
        std::size_t count = 0;
        for (const case_entry* entry : store->cases(kind.exercise)) {
            if (entry->kind != kind.kind) continue;
            ++count;
            ::testing::RegisterTest(
                kind.kind.c_str(), entry->name().c_str(), nullptr, entry->path.c_str(), kind.file,
                kind.line,
                [&kind, entry]() -> ::testing::Test* { return new case_test(kind, *entry); });
        }
        if (count == 0) {
            register_failure(kind.kind.c_str(), "has_cases",
                             "the case set " + store->root().string() + " has no case of kind " +
                                 kind.kind + "; re-record it with tools/record");
        }
    }
    for (const auto& exercise : exercises) {
        for (const case_entry* entry : store->cases(exercise)) {
            if (kinds.count(exercise + "/" + entry->kind) == 0) {
                register_failure(entry->kind.c_str(), entry->name(),
                                 "no ATTN_CASE(" + entry->kind + ") runs case " + entry->path);
            }
        }
    }
}

// The value of `--name=value` among the arguments, or "".
std::string option(int argc, char** argv, const std::string& name) {
    const std::string prefix = "--" + name + "=";
    for (int i = 1; i < argc; ++i) {
        const std::string argument = argv[i];
        if (argument.rfind(prefix, 0) == 0) return argument.substr(prefix.size());
    }
    return "";
}

// Whether `--name` is among the arguments.
bool has_flag(int argc, char** argv, const std::string& name) {
    for (int i = 1; i < argc; ++i) {
        if (argv[i] == "--" + name) return true;
    }
    return false;
}

// --attn-cpu-limit=SECONDS: the program's own RLIMIT_CPU. A test's time limit is CPU time, so
// that a busy machine, which slows correct code by the clock alone, never fails it; an endless
// loop ends with SIGXCPU, which the verdict stream names (kit/verdicts.hpp). ctest and tools/kit
// pass it and keep a wall-clock backstop of their own; tools/grade's runs set their limits in
// its sandbox. Returns 0, or 2 with the problem on stderr.
int limit_cpu_time(const std::string& text) {
    if (text.empty()) return 0;
    char* end = nullptr;
    const double seconds = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || !(seconds >= 1) || seconds > 1e6) {
        std::cerr << "--attn-cpu-limit: expected a number of seconds from 1 to 1000000, got '"
                  << text << "'\n";
        return 2;
    }
    rlimit limit{};
    if (::getrlimit(RLIMIT_CPU, &limit) != 0) return 0;
    const auto soft = static_cast<rlim_t>(std::ceil(seconds));
    if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur <= soft) return 0;  // a lower one stays
    limit.rlim_cur = soft;
    // SIGKILL a second later, for code that catches SIGXCPU
    if (limit.rlim_max == RLIM_INFINITY || limit.rlim_max > soft + 1) limit.rlim_max = soft + 1;
    ::setrlimit(RLIMIT_CPU, &limit);
    return 0;
}

// OpenBLAS runs a product on threads of its own, which spin (sched_yield) between products. A
// test program's products are small, ctest runs several programs at once, and RLIMIT_CPU
// counts every thread: the spinning only spends the student's CPU time (a third of exercise
// 22's on 2 cores, more with more cores). So one thread, unless OPENBLAS_NUM_THREADS says
// otherwise. Weak: a build on another BLAS has no such switch.
extern "C" void openblas_set_num_threads(int threads) __attribute__((weak));

void one_blas_thread() {
    if (openblas_set_num_threads != nullptr && std::getenv("OPENBLAS_NUM_THREADS") == nullptr)
        openblas_set_num_threads(1);
}

// "a,b,,c" as {"a", "b", "c"}.
std::vector<std::string> comma_list(const std::string& text) {
    std::vector<std::string> items;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(',', start), text.size());
        if (end > start) items.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return items;
}

int run_as_runner(int argc, char** argv) {
    const std::string results = option(argc, argv, "attn-results");
    if (results.empty()) {
        std::cerr << "usage: " << argv[0]
                  << " --attn-run-cases=CASE_SET --attn-results=OUT [--attn-case=PATH[,PATH...]]\n";
        return 2;
    }
    // main() was reached: tools/grade tells a program that another file's static initializer
    // ended before any case ran (it links a student's files together) from a hang or crash in
    // the code under test. Never evidence for a verdict: the judge reads only the results.
    std::ofstream(std::filesystem::path(results) / "runner-started");
    try {
        const golden_store cases(option(argc, argv, "attn-run-cases"));
        const auto summary = run_cases(cases, results, comma_list(option(argc, argv, "attn-case")));
        std::cout << "ran " << summary.cases << " cases; the code under test threw in "
                  << (summary.threw ? std::to_string(summary.threw) : "none") << '\n';
        for (const auto& path : summary.not_found) {
            std::cerr << "--attn-case: this program runs no case " << path << " of "
                      << cases.root().string() << '\n';
        }
        return summary.not_found.empty() ? 0 : 2;
    } catch (const std::exception& error) {
        std::cerr << error.what() << '\n';
        return 2;
    }
}

// ---- --attn-show: one case's tensors --------------------------------------------------------
//
// The JSON Lines of --attn-show-json=FILE, each line written and flushed whole, so a reader
// has the inputs and the expected outputs even where the code under test then crashes or
// hangs:
//   {"event": "case", "path", "name", "kind", "source", "cases": [every case name, the
//    kinds in the test file's order, each kind's cases in path order]}
//   {"event": "tensor", "role": "input" | "expected" | "yours", "name", "shape", "dtype",
//    "repr": PyTorch's print of it, "matrix": an attention matrix's values or null
//    (attention_matrix_of; an expected one without "got" and "beyond"),
//    yours only: "comparison" (comparison_json)}
//   {"event": "threw", "stub": true if attn::not_implemented, "message": its one line}
//   {"event": "end"}      after the code under test returned or threw
//   {"event": "error", "message"}   no such case, or a broken case set (exit status 2)

// Where the shown case goes: text on stdout, or JSON Lines to a file.
class show_output {
public:
    explicit show_output(const std::string& json_path) {
        if (json_path.empty()) return;
        file_ = std::fopen(json_path.c_str(), "w");
        if (file_ == nullptr) throw std::runtime_error("cannot write " + json_path);
    }
    ~show_output() {
        if (file_ != nullptr) std::fclose(file_);
    }
    show_output(const show_output&) = delete;
    show_output& operator=(const show_output&) = delete;

    bool json() const { return file_ != nullptr; }

    void line(const std::string& json) {
        const std::string text = json + "\n";
        std::fwrite(text.data(), 1, text.size(), file_);
        std::fflush(file_);
    }

private:
    std::FILE* file_ = nullptr;
};

// "(6, 6)", "(6,)", "()": a shape as Python writes a tuple.
std::string python_shape(const std::vector<std::size_t>& shape) {
    std::string text = "(";
    for (std::size_t d = 0; d < shape.size(); ++d) {
        text += (d ? ", " : "") + std::to_string(shape[d]);
    }
    return text + (shape.size() == 1 ? ",)" : ")");
}

std::string indented_repr(const any_tensor& tensor) {
    std::istringstream lines(torch_repr(tensor));
    std::string line, text;
    while (std::getline(lines, line)) text += (line.empty() ? "" : "  " + line) + "\n";
    return text;
}

void show_tensor(show_output& out, const std::string& role, const std::string& name,
                 const any_tensor& tensor, const std::optional<attention_matrix>& matrix,
                 const std::string& verdict = "", const comparison* compared = nullptr) {
    if (out.json()) {
        out.line(shown_tensor_line(role, name, tensor, matrix, compared));
        return;
    }
    std::cout << role << ' ' << name << ", shape " << python_shape(shape_of(tensor)) << ':'
              << (verdict.empty() ? "" : " " + verdict) << '\n'
              << indented_repr(tensor) << std::flush;
}

// The case's run: each expected output the code returns, compared with its golden, and the
// failure of a call that throws.
class show_context : public case_context {
public:
    show_context(const golden_store& store, const case_entry& entry, show_output& out)
        : case_context(store, entry), out_(out) {}

protected:
    void on_result(const std::string& name, const std::string&, const char*, int,
                   const any_tensor& value) override {
        const auto& expected = entry_.expected;
        if (std::find(expected.begin(), expected.end(), name) == expected.end() ||
            !shown_.insert(name).second) {
            return;
        }
        const expected_golden golden = store_.expected(entry_.file(name));
        const comparison compared = compare(value, golden);
        const std::string verdict =
            compared.passed
                ? "matches the expected output"
                : "differs: " + compared.reason +
                      (compared.mistake.empty() ? "" : " — looks like: " + compared.mistake);
        show_tensor(out_, "yours", name, value,
                    attention_matrix_of(store_.case_set(), name, value, golden.tensor, compared),
                    verdict, &compared);
    }
    void on_throw(const call_failure& failure, const char*, int) override {
        if (out_.json()) {
            out_.line(shown_throw_line(failure.stub, failure.line));
        } else {
            std::cout << "yours: " << failure.line << '\n' << std::flush;
        }
    }

private:
    show_output& out_;
    std::set<std::string> shown_;
};

// The cases this program runs: its kinds in the test file's order, each kind's cases in path
// order.
std::vector<std::pair<const case_kind*, const case_entry*>> program_cases(
    const golden_store& store) {
    std::vector<std::pair<const case_kind*, const case_entry*>> found;
    for (const case_kind& kind : case_kinds()) {
        for (const case_entry* entry : store.cases(kind.exercise)) {
            if (entry->kind == kind.kind) found.emplace_back(&kind, entry);
        }
    }
    return found;
}

int show_case(const std::string& wanted, const std::string& json_path) {
    std::optional<show_output> out;
    try {
        out.emplace(json_path);
    } catch (const std::exception& error) {
        std::cerr << error.what() << '\n';
        return 2;
    }
    const auto refuse = [&](const std::string& message) {
        if (out->json()) out->line(shown_error_line(message));
        std::cerr << message << '\n';
        return 2;
    };
    try {
        const golden_store& store = golden_store::instance();
        const auto cases = program_cases(store);
        if (cases.empty()) return refuse("this program runs no case of " + store.root().string());
        std::vector<std::string> names;
        for (const auto& [kind, entry] : cases) names.push_back(entry->name());
        auto chosen = cases.begin();
        if (wanted.empty()) {
            const auto notebook = std::find_if(cases.begin(), cases.end(), [](const auto& found) {
                return found.second->name().find("notebook") != std::string::npos;
            });
            if (notebook != cases.end()) chosen = notebook;
        } else {
            chosen = std::find_if(cases.begin(), cases.end(), [&](const auto& found) {
                return found.second->name() == wanted || found.second->path == wanted;
            });
            if (chosen == cases.end()) {
                std::string list;
                for (const auto& name : names) list += (list.empty() ? "" : ", ") + name;
                return refuse("exercise " + cases.front().second->exercise + " has no case " +
                              wanted + "; its cases are " + list);
            }
        }
        const case_kind& kind = *chosen->first;
        const case_entry& entry = *chosen->second;
        if (out->json()) {
            out->line(shown_case_line(entry, names));
        } else {
            std::cout << "Exercise " << entry.exercise << ", case " << entry.name() << ": "
                      << entry.kind << " (" << entry.source << ")\n";
        }
        for (const auto& name : entry.inputs) {
            show_tensor(*out, "input", name, store.load(entry.file(name)), std::nullopt);
        }
        for (const auto& name : entry.expected) {
            const any_tensor golden = store.load(entry.file(name));
            auto matrix = attention_matrix_of(store.case_set(), name, golden, golden, comparison{});
            if (matrix) {  // the expected values only
                matrix->got.clear();
                matrix->beyond.clear();
            }
            show_tensor(*out, "expected", name, golden, matrix);
        }
        show_context context(store, entry, *out);
        run_case(kind, context);
        if (out->json()) {
            out->line(shown_end_line());
        } else if (names.size() > 1) {
            std::string others;
            for (const auto& name : names) {
                if (name != entry.name()) others += (others.empty() ? "" : ", ") + name;
            }
            std::cout << "Other cases: " << others << '\n';
        }
        return 0;
    } catch (const std::exception& error) {  // a broken case set: the kit's defect
        return refuse(error.what());
    }
}

}  // namespace
}  // namespace attn::kit

int main(int argc, char** argv) {
    if (const int status =
            attn::kit::limit_cpu_time(attn::kit::option(argc, argv, "attn-cpu-limit")))
        return status;
    attn::kit::one_blas_thread();
    attn::kit::watch_throws_in(attn::kit::exercise_stub().file);
    if (!attn::kit::option(argc, argv, "attn-run-cases").empty()) {
        return attn::kit::run_as_runner(argc, argv);
    }
    if (attn::kit::has_flag(argc, argv, "attn-show") ||
        !attn::kit::option(argc, argv, "attn-show").empty()) {
        return attn::kit::show_case(attn::kit::option(argc, argv, "attn-show"),
                                    attn::kit::option(argc, argv, "attn-show-json"));
    }
    // Line by line, so what the student printed before a hang reaches the reader.
    std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
    ::testing::InitGoogleTest(&argc, argv);
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    if (attn::kit::has_flag(argc, argv, "attn-quiet"))
        delete listeners.Release(listeners.default_result_printer());
    const std::string verdicts = attn::kit::option(argc, argv, "attn-verdicts");
    if (!verdicts.empty()) {
        try {
            attn::kit::write_verdicts_to(verdicts, std::filesystem::path(argv[0]).filename());
        } catch (const std::exception& error) {
            std::cerr << error.what() << '\n';
            return 2;
        }
    }
    attn::kit::register_case_tests();
    return RUN_ALL_TESTS();
}
