// kit/cases.hpp — value tests as cases: named inputs, one call of the API, expected outputs.
//
// A test file states each kind of call once:
//
//   ATTN_CASE(dot_scores) {
//       const auto inputs = the_case.input<2>("inputs");   // (T, d_in), from the case's files
//       const auto query = the_case.input<1>("query");
//       ATTN_RESULT("scores", attn::dot_scores(inputs, query));
//   }
//
// and every case of that kind in a case set (MANIFEST.json's "cases") runs it: the notebook's
// inputs, other shapes, and hidden case sets the student never sees. Sizes come from the
// inputs, never from literals. What happens to a result depends on who runs the case: the
// GoogleTest layer compares it with the golden and explains a mismatch (kit/testing.hpp);
// the runner only writes it to a folder for the judge (kit/runner.hpp). This header has no
// GoogleTest in it.
#pragma once

#include "attn/module.hpp"
#include "attn/tensor.hpp"
#include "kit/any_tensor.hpp"
#include "kit/golden_store.hpp"
#include "kit/laws.hpp"
#include "kit/student_code.hpp"

#include <xtensor/xtensor.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attn::kit {

// Thrown by case_context::result once the code under test has thrown and the throw has been
// reported: the rest of the case, which needs that result, does not run.
struct case_stopped {};

// What a case's body sees: its inputs, and `result`, which runs one call of the student's code.
class case_context {
public:
    case_context(const golden_store& store, const case_entry& entry)
        : store_(store), entry_(entry) {}
    virtual ~case_context() = default;

    const case_entry& entry() const { return entry_; }

    // The float32 input `name` of this case, of rank N. Its shape is remembered: a call that
    // throws names the shapes of its arguments.
    // In a law's variant (serve_variant_of), an input the law changes comes changed.
    template <std::size_t N>
    xt::xtensor<float, N> input(const std::string& name) {
        return made_input<N>(name, store_.load_as<float, N>(input_path(name)));
    }

    // `tensor`, an input the case makes itself rather than loads (from a seed), under the
    // name `name`: remembered like input(), and changed like it in a law's variant.
    template <std::size_t N>
    xt::xtensor<float, N> made_input(const std::string& name, xt::xtensor<float, N> tensor) {
        if (variant_ && law_changes(*variant_, name)) {
            tensor = law_input(*variant_, float_tensor(tensor));
        }
        loaded_.push_back({name, shape_string(tensor.shape())});
        return tensor;
    }

    // From now on, serve the inputs as `law`'s variant sees them (kit/laws.hpp).
    void serve_variant_of(const case_law& law) { variant_ = &law; }

    // integer(name) as a size or count (num_heads, context_length, T); the recorder stores
    // none below 0.
    std::size_t size(const std::string& name) { return static_cast<std::size_t>(integer(name)); }

    // The case's float32 inputs whose names start with `prefix` ("heads.1."), the prefix taken
    // off: a module's state_dict as the recorder saved it ("W_query.weight.npy", ...).
    attn::StateDict state_dict(const std::string& prefix = "");

    // An int64 scalar input (a dim, an index) of this case, remembered like input().
    std::int64_t integer(const std::string& name) {
        const std::int64_t value = store_.load_as<std::int64_t, 0>(input_path(name))();
        loaded_.push_back({name, "= " + std::to_string(value)});
        return value;
    }

    // Runs `call` (the text `call_text`, at file:line, for messages). If it throws, reports
    // the one-line failure, with the shapes of the inputs the call names, and throws
    // case_stopped; else returns its result, evaluated.
    template <class Call>
    auto run(const char* call_text, const char* file, int line, Call&& call) {
        std::optional<decltype(evaluated(call()))> value;
        const call_failure failure = failure_of([&] { value.emplace(evaluated(call())); },
                                                call_text, arguments_of(call_text, loaded_));
        if (failure.threw()) {
            on_throw(failure, file, line);
            throw case_stopped{};
        }
        return std::move(*value);
    }

    // run(), then hands the result on as output `name` and returns it, for a further output
    // to use.
    template <class Call>
    auto result(const std::string& name, const char* call_text, const char* file, int line,
                Call&& call) {
        auto value = run(call_text, file, line, std::forward<Call>(call));
        on_result(name, call_text, file, line, to_any_tensor(value));
        return value;
    }

    // run() twice on the same inputs, then hands the two results on as the outputs `name` and
    // `again_name` (through on_repeated) and returns the first. For code whose threads could
    // share memory (the GPU track's kernels): the GoogleTest layer fails a case whose two
    // results differ bit for bit, as a race, before comparing each with its golden.
    template <class Call>
    auto result_twice(const std::string& name, const std::string& again_name, const char* call_text,
                      const char* file, int line, Call&& call) {
        auto first = run(call_text, file, line, call);
        auto again = run(call_text, file, line, call);
        on_repeated(name, again_name, call_text, file, line, to_any_tensor(first),
                    to_any_tensor(again));
        return first;
    }

protected:
    virtual void on_result(const std::string& name, const std::string& call, const char* file,
                           int line, const any_tensor& value) = 0;
    // The two results of result_twice: by default each is handed on as its output.
    virtual void on_repeated(const std::string& name, const std::string& again_name,
                             const std::string& call, const char* file, int line,
                             const any_tensor& first, const any_tensor& again) {
        on_result(name, call, file, line, first);
        on_result(again_name, call, file, line, again);
    }
    virtual void on_throw(const call_failure& failure, const char* file, int line) = 0;

    const golden_store& store_;
    const case_entry& entry_;

private:
    std::string input_path(const std::string& name) const;

    std::vector<argument> loaded_;       // the inputs loaded so far, in order
    const case_law* variant_ = nullptr;  // the law whose variant this is, or none
};

// The float32 inputs of `entry` whose names start with `prefix`, the prefix taken off: a
// module's state_dict as the recorder saved it ("heads.0.W_query.weight.npy", ...).
attn::StateDict state_dict_of(const golden_store& store, const case_entry& entry,
                              const std::string& prefix);

// One ATTN_CASE: the exercise it belongs to, its kind, its body and where it is written.
struct case_kind {
    std::string exercise;
    std::string kind;
    void (*run)(case_context&);
    const char* file;
    int line;
};

// Every ATTN_CASE linked into this program, in registration order.
const std::vector<case_kind>& case_kinds();

// Called by ATTN_CASE during static initialisation; returns true.
bool register_case_kind(case_kind kind);

// A kind of case whose call runs the student's code of other kinds of the same exercise
// (ATTN_CASE_CALLS): `forward` calls `split_heads`. Where both fail, the callee's failure is
// the root cause, and the caller's says so (docs/verdicts.md, "because").
struct case_calls {
    std::string exercise;
    std::string kind;
    std::vector<std::string> callees;  // in the order to fix them
};

// Every ATTN_CASE_CALLS linked into this program.
const std::vector<case_calls>& calls_between_kinds();

// Called by ATTN_CASE_CALLS during static initialisation; returns true.
bool register_case_calls(case_calls calls);

// Runs the case's body; a throw of the code under test has already been reported then.
void run_case(const case_kind& kind, case_context& context);

}  // namespace attn::kit

// Defines the body of one kind of case; inside it, `the_case` is the case_context. The case
// belongs to the exercise ATTN_EXERCISE_ID, which CMake defines for each test file ("03").
#define ATTN_CASE(kind)                                                       \
    static void attn_case_##kind(::attn::kit::case_context& the_case);        \
    [[maybe_unused]] static const bool attn_case_##kind##_registered =        \
        ::attn::kit::register_case_kind(                                      \
            {ATTN_EXERCISE_ID, #kind, attn_case_##kind, __FILE__, __LINE__}); \
    static void attn_case_##kind(::attn::kit::case_context& the_case)

// The case kind `kind` calls the student's code that the kinds named after it test, in the
// order a student should fix them, as the notebook's code does:
//   ATTN_CASE_CALLS(multi_head_attention, "split_heads", "truncated_mask", "merge_heads");
#define ATTN_CASE_CALLS(kind, ...)                                      \
    [[maybe_unused]] static const bool attn_calls_##kind##_registered = \
        ::attn::kit::register_case_calls({ATTN_EXERCISE_ID, #kind, {__VA_ARGS__}})

// One call of the code under test, whose result is the case's output `name`; evaluates to
// that result, so a further output can be computed from it.
#define ATTN_RESULT(name, call) \
    the_case.result(name, #call, __FILE__, __LINE__, [&] { return call; })

// One call of the code under test run twice on the same inputs, its results the case's outputs
// `name` and `again_name` (each with its golden); evaluates to the first result. A result that
// differs between the two runs fails as "results differ from run to run" (kit/testing.hpp).
#define ATTN_RESULT_TWICE(name, again_name, call) \
    the_case.result_twice(name, again_name, #call, __FILE__, __LINE__, [&] { return call; })

// One call of the code under test whose result is not an output itself (a module, whose
// parameters and forward are): evaluates to it. A throw is reported as ATTN_RESULT's.
#define ATTN_CALL(call) the_case.run(#call, __FILE__, __LINE__, [&] { return call; })
