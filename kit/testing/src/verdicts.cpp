// kit/testing/src/verdicts.cpp — the verdict stream of a test program (kit/verdicts.hpp).
#include "kit/verdicts.hpp"

#include "kit/cases.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

namespace attn::kit {
namespace {

std::vector<std::pair<std::string, failure_facts>>& noted() {
    static std::vector<std::pair<std::string, failure_facts>> failures;
    return failures;
}

// The facts noted for the failure with this text, if any (each is used once).
failure_facts take_facts(const std::string& text) {
    auto& failures = noted();
    for (auto it = failures.begin(); it != failures.end(); ++it) {
        if (it->first == text) {
            failure_facts facts = std::move(it->second);
            failures.erase(it);
            return facts;
        }
    }
    return {"assertion", "", {}};
}

// Whether facts were noted for the failure with this text.
bool is_noted(const std::string& text) {
    const auto& failures = noted();
    return std::any_of(failures.begin(), failures.end(),
                       [&](const auto& failure) { return failure.first == text; });
}

std::vector<std::string>& ruled_out_now() {
    static std::vector<std::string> names;
    return names;
}

std::vector<std::string>& notes_now() {  // note_performance()'s of the running test
    static std::vector<std::string> notes;
    return notes;
}

int stream = -1;  // the verdict file, opened for appending

// Writes all of `text` with as few write(2) calls as the kernel allows (one, for a line of
// a regular file): safe in a signal handler.
void write_all(const char* text, std::size_t size) {
    while (size > 0) {
        const ssize_t done = ::write(stream, text, size);
        if (done < 0 && errno == EINTR) continue;
        if (done <= 0) return;  // a full disk: the reader sees a stream that stops early
        text += done;
        size -= static_cast<std::size_t>(done);
    }
}

void write_line(const std::string& json) {
    const std::string line = json + "\n";
    write_all(line.data(), line.size());
}

// ---- the crash line --------------------------------------------------------------------

// SIGXCPU: the CPU time limit (--attn-cpu-limit), which ends an endless loop.
constexpr std::array<int, 6> fatal_signals = {SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL, SIGXCPU};
std::array<struct sigaction, fatal_signals.size()> previous{};

// `{"event":"crash","test":"<the test running>","signal":"` , prepared when each test starts:
// the handler may only copy bytes.
std::array<char, 2048> crash_prefix{};
std::size_t crash_prefix_size = 0;

const char* signal_name(int signal) {
    switch (signal) {
        case SIGSEGV:
            return "SIGSEGV";
        case SIGABRT:
            return "SIGABRT";
        case SIGFPE:
            return "SIGFPE";
        case SIGBUS:
            return "SIGBUS";
        case SIGXCPU:
            return "SIGXCPU";
        default:
            return "SIGILL";
    }
}

void prepare_crash_line(const std::string& test) {
    const std::string prefix = crash_line_start(test);
    crash_prefix_size = prefix.size() <= crash_prefix.size() ? prefix.size() : 0;
    std::memcpy(crash_prefix.data(), prefix.data(), crash_prefix_size);
}

void on_fatal_signal(int signal, siginfo_t* info, void* context) {
    std::array<char, 2048 + 32> line{};
    std::size_t size = crash_prefix_size;
    std::memcpy(line.data(), crash_prefix.data(), size);
    const char* name = signal_name(signal);
    const std::size_t name_size = std::strlen(name);
    std::memcpy(line.data() + size, name, name_size);
    size += name_size;
    std::memcpy(line.data() + size, "\"}\n", 3);
    size += 3;
    if (crash_prefix_size > 0) write_all(line.data(), size);

    // Then what the signal did before: a sanitizer's handler (its report names the line),
    // or the default action, which ends the program with this signal.
    for (std::size_t i = 0; i < fatal_signals.size(); ++i) {
        if (fatal_signals[i] != signal) continue;
        const struct sigaction& before = previous[i];
        if ((before.sa_flags & SA_SIGINFO) != 0 && before.sa_sigaction != nullptr) {
            before.sa_sigaction(signal, info, context);
        } else if (before.sa_handler != SIG_DFL && before.sa_handler != SIG_IGN) {
            before.sa_handler(signal);
        }
        ::sigaction(signal, &before, nullptr);
        ::raise(signal);
    }
}

void install_crash_handler() {
    for (std::size_t i = 0; i < fatal_signals.size(); ++i) {
        struct sigaction action {};
        action.sa_sigaction = on_fatal_signal;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        ::sigaction(fatal_signals[i], &action, &previous[i]);
    }
}

// ---- the listener ----------------------------------------------------------------------

std::string full_name(const ::testing::TestInfo& test) {
    return std::string(test.test_suite_name()) + "." + test.name();
}

// The "attn_case" property a value case records (kit/testing/src/main.cpp), if any.
std::optional<std::string> case_of(const ::testing::TestResult& result) {
    for (int i = 0; i < result.test_property_count(); ++i) {
        const auto& property = result.GetTestProperty(i);
        if (std::strcmp(property.key(), "attn_case") == 0) return property.value();
    }
    return std::nullopt;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// The failure's "alike" key (docs/verdicts.md): failures of one program with the same key are
// one failure on several cases, which a reader shows once. The same named slip (its family,
// whatever its dim), the same shape of error in the same output, the same law broken, the same
// throw whatever the arguments' shapes; an untouched stub's value cases and argument checks
// alike. A mismatch with no name and no shape is alike only to itself.
std::string alike_key(const failure_facts& facts, const comparison& compared,
                      const std::string& text, const std::string& test) {
    if (facts.kind == "mismatch") {
        // A named slip, or the same slip as another case's (decide_names), by its family.
        if (!compared.mistake_family.empty()) return "mistake:" + compared.mistake_family;
        if (!compared.diagnosis_id.empty())
            return "diagnosis:" + facts.output + ":" + compared.diagnosis_id;
        return "mismatch:" + test + ":" + facts.output;
    }
    if (facts.kind == "law") return "law:" + facts.output;
    if (facts.kind == "not_implemented") return "not_implemented";
    if (facts.kind == "threw") return "threw:" + facts.alike;
    if (facts.kind == "kernel") return facts.alike;  // "kernel:shared_race_raw"
    return facts.kind + ":" + text;
}

class verdict_stream : public ::testing::EmptyTestEventListener {
public:
    explicit verdict_stream(std::string program) : program_(std::move(program)) {}

    void OnTestProgramStart(const ::testing::UnitTest&) override {
        write_line(program_line(program_));
    }

    void OnTestStart(const ::testing::TestInfo& test) override {
        running_ = {};
        running_.record.test = full_name(test);
        running_.kind = test.test_suite_name();
        ruled_out_now().clear();
        notes_now().clear();
        write_line(start_line(running_.record.test));
        prepare_crash_line(running_.record.test);
    }

    void OnTestPartResult(const ::testing::TestPartResult& part) override {
        if (part.skipped() || part.passed()) return;
        std::string text = part.message();
        // ADD_FAILURE(), ADD_FAILURE_AT() and FAIL() start their message with this line.
        const std::string failed = "Failed\n";
        if (text.compare(0, failed.size(), failed) == 0) text.erase(0, failed.size());
        // GoogleTest 1.16 (Debian 13) ends every failure's message with a newline of its own
        // where it has no stack trace to add (UnitTest::AddTestPartResult); 1.12 (Debian 12)
        // adds nothing. The text is the one the test wrote, which note_failure() recorded.
        if (!text.empty() && text.back() == '\n' && !is_noted(text)) text.pop_back();
        failure_record failure;
        failure.facts = take_facts(text);
        failure.message = first_line(text);
        failure.text = text;
        failure.alike =
            alike_key(failure.facts, failure.facts.compared, text, running_.record.test);
        failure.file = part.file_name() ? part.file_name() : "";
        failure.line = part.line_number();
        std::optional<failure_record> unnamed;  // the failure with its name taken back
        if (!failure.facts.unnamed_text.empty()) {
            unnamed = failure;
            unnamed->facts.compared = take_back_name(failure.facts.compared);
            unnamed->text = failure.facts.unnamed_text;
            unnamed->message = first_line(unnamed->text);
            unnamed->alike = alike_key(unnamed->facts, unnamed->facts.compared, unnamed->text,
                                       running_.record.test);
        }
        running_.record.failures.push_back(std::move(failure));
        running_.unnamed.push_back(std::move(unnamed));
    }

    void OnTestEnd(const ::testing::TestInfo& test) override {
        const auto& result = *test.result();
        test_record& record = running_.record;
        record.case_path = case_of(result);
        record.status = result.Skipped() ? "skipped" : result.Failed() ? "failed" : "passed";
        record.ruled_out = ruled_out_now();
        record.notes = notes_now();
        write_line(test_line(record));
        finished_.push_back(std::move(running_));
        running_ = {};
        noted().clear();
        prepare_crash_line("");
    }

    void OnTestProgramEnd(const ::testing::UnitTest& unit) override {
        write_revised_tests();
        int tests = 0;
        for (int i = 0; i < unit.total_test_suite_count(); ++i) {
            const auto& suite = *unit.GetTestSuite(i);
            for (int j = 0; j < suite.total_test_count(); ++j) {
                const auto& test = *suite.GetTestInfo(j);
                if (!test.is_reportable()) continue;  // filtered out
                ++tests;
                if (!test.should_run()) {
                    test_record not_run;
                    not_run.test = full_name(test);
                    not_run.case_path = case_of(*test.result());
                    not_run.status = "not run";
                    write_line(test_line(not_run));
                }
            }
        }
        write_line(end_line(tests, unit.failed_test_count(), failure_groups(failed_tests())));
    }

private:
    // A test as written, and what deciding its names across tests needs.
    struct finished_test {
        std::string kind;  // its suite: a value case's ATTN_CASE kind
        test_record record;
        // Beside record.failures: each failure with its name taken back, where it names one.
        std::vector<std::optional<failure_record>> unnamed;
    };

    // The names decided over every test (decide_names, as the judge decides them): each test
    // whose failure that changes is written again, its name taken back or its failure the
    // same slip as another test's.
    void write_revised_tests() {
        std::set<std::pair<std::string, std::string>> ruled_out;  // (kind, mistake)
        std::vector<case_comparison> compared;
        for (auto& test : finished_) {
            for (const auto& name : test.record.ruled_out) ruled_out.emplace(test.kind, name);
            for (auto& failure : test.record.failures) {
                if (failure.facts.kind == "mismatch")
                    compared.push_back({test.kind, test.record.test, &failure.facts.compared});
            }
        }
        const auto changed = decide_names(compared, ruled_out);
        const auto root_causes = failed_callees();
        for (auto& test : finished_) {
            test_record& record = test.record;
            const auto cause = root_causes.find(test.kind);
            if (cause != root_causes.end() && record.status == "failed" && record.case_path) {
                record.because = cause->second;
                record.revised = true;
            }
            for (std::size_t i = 0; i < record.failures.size(); ++i) {
                failure_record& failure = record.failures[i];
                const comparison& verdict = failure.facts.compared;
                if (std::find(changed.begin(), changed.end(), &verdict) == changed.end()) continue;
                if (!verdict.taken_back.empty() && test.unnamed[i]) {
                    failure = *test.unnamed[i];  // its text without the name, kept when it failed
                } else {
                    failure.message = headline(failure.facts.call, verdict);
                    failure.text =
                        failure.message +
                        failure.text.substr(std::min(failure.text.find('\n'), failure.text.size()));
                    failure.alike = alike_key(failure.facts, verdict, failure.text, record.test);
                }
                record.revised = true;
            }
            if (record.revised) write_line(test_line(record));
        }
    }

    // The failed tests as their last events state them, for failure_groups.
    std::vector<failed_test> failed_tests() const {
        std::vector<failed_test> failed;
        for (const auto& test : finished_) {
            const test_record& record = test.record;
            if (record.status != "failed") continue;
            failed_test one;
            one.name = record.test;
            one.case_path = record.case_path.value_or("");
            const auto& failures = record.failures;
            if (!failures.empty()) {
                const failure_facts& first = failures.front().facts;
                one.alike = failures.front().alike;
                one.kind = first.kind;
                one.named = states_comparison(first) && (!first.compared.mistake.empty() ||
                                                         !first.compared.same_slip_as.empty());
            }
            one.stub = !failures.empty() &&
                       std::all_of(failures.begin(), failures.end(), [](const auto& failure) {
                           return failure.facts.kind == "not_implemented";
                       });
            if (record.because) one.waits_for = record.because->function;
            failed.push_back(std::move(one));
        }
        return failed;
    }

    // For each kind that calls another (ATTN_CASE_CALLS) whose value cases failed, the first
    // such callee, its failed and run value cases.
    std::map<std::string, failed_callee> failed_callees() const {
        std::map<std::string, std::pair<int, int>> counted;  // kind -> (failed, run)
        for (const auto& test : finished_) {
            if (!test.record.case_path) continue;  // an argument check
            auto& [failed, run] = counted[test.kind];
            failed += test.record.status == "failed";
            ++run;
        }
        std::map<std::string, failed_callee> causes;
        for (const auto& calls : calls_between_kinds()) {
            for (const auto& callee : calls.callees) {
                const auto found = counted.find(callee);
                if (found == counted.end() || found->second.first == 0) continue;
                causes[calls.kind] = {callee, found->second.first, found->second.second};
                break;
            }
        }
        return causes;
    }

    std::string program_;
    finished_test running_;  // the test running now
    std::vector<finished_test> finished_;
};

bool from_the_notebook(const failed_test& test) {
    const std::string name = test.case_path.substr(test.case_path.rfind('/') + 1);
    const std::string shape = "_shape";
    return name.find("notebook") != std::string::npos &&
           !(name.size() >= shape.size() &&
             name.compare(name.size() - shape.size(), shape.size(), shape) == 0);
}

std::string group_key(const failed_test& test) {
    return test.waits_for.empty() ? test.alike
                                  : "because:" + test.name.substr(0, test.name.find('.'));
}

}  // namespace

std::vector<std::vector<std::string>> failure_groups(const std::vector<failed_test>& tests) {
    // The tests in reading order: value cases first, then argument checks.
    std::vector<const failed_test*> ordered;
    for (const auto& test : tests) ordered.push_back(&test);
    std::stable_sort(ordered.begin(), ordered.end(), [](const auto* a, const auto* b) {
        return !a->case_path.empty() && b->case_path.empty();
    });
    std::vector<std::string> keys;  // in order of first appearance
    std::map<std::string, std::vector<const failed_test*>> groups;
    std::map<std::string, int> named;  // failed tests naming each key's mistake
    for (const auto* test : ordered) {
        const std::string key = group_key(*test);
        if (groups.find(key) == groups.end()) keys.push_back(key);
        groups[key].push_back(test);
        if (test->named && test->waits_for.empty()) ++named[key];
    }
    std::string most;  // the first of the keys most tests name
    for (const auto& key : keys) {
        if (named.count(key) && (most.empty() || named[key] > named[most])) most = key;
    }
    const auto rank = [&](const std::string& key) {
        auto& group = groups[key];
        std::stable_sort(group.begin(), group.end(), [](const auto* a, const auto* b) {
            return from_the_notebook(*a) && !from_the_notebook(*b);
        });
        const failed_test& shown = *group.front();
        if (!shown.waits_for.empty()) return 5;
        if (shown.stub) return 4;
        if (key == most) return 0;
        if (from_the_notebook(shown) && shown.kind == "threw") return 1;
        return from_the_notebook(shown) ? 2 : 3;
    };
    std::map<std::string, int> ranks;
    for (const auto& key : keys) ranks[key] = rank(key);
    std::stable_sort(keys.begin(), keys.end(),
                     [&](const auto& a, const auto& b) { return ranks[a] < ranks[b]; });
    std::vector<std::vector<std::string>> shown;
    for (const auto& key : keys) {
        std::vector<std::string> names;
        for (const auto* test : groups[key]) names.push_back(test->name);
        shown.push_back(std::move(names));
    }
    return shown;
}

void note_performance(const std::string& text) {
    if (std::find(notes_now().begin(), notes_now().end(), text) == notes_now().end())
        notes_now().push_back(text);
}

void note_failure(const std::string& text, failure_facts facts) {
    noted().emplace_back(text, std::move(facts));
}

void note_ruled_out(const std::vector<std::string>& mistakes) {
    auto& names = ruled_out_now();
    for (const auto& name : mistakes) {
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
}

void write_verdicts_to(const std::string& path, const std::string& program) {
    stream = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666);
    if (stream < 0) {
        throw std::runtime_error("--attn-verdicts: cannot write " + path + ": " +
                                 std::strerror(errno));
    }
    ::testing::UnitTest::GetInstance()->listeners().Append(new verdict_stream(program));
    install_crash_handler();
}

}  // namespace attn::kit
