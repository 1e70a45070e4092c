// kit/testing/src/testing.cpp — cases as GoogleTest tests, and tests of argument checks.
#include "kit/testing.hpp"

#include "attn/errors.hpp"
#include "kit/student_code.hpp"

namespace attn::kit {

attn::StateDict case_state_dict(const std::string& case_path, const std::string& prefix) {
    const golden_store& store = golden_store::instance();
    return state_dict_of(store, store.find_case(case_path), prefix);
}

::testing::AssertionResult result_matches(const std::string& call, const any_tensor& result,
                                          const expected_golden& expected) {
    const comparison verdict = compare(result, expected);
    if (verdict.passed) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << explain(call, expected, verdict);
}

namespace {

call_outcome thrown(const std::exception& error) {
    call_outcome outcome;
    outcome.returned = false;
    outcome.type = type_name(error);
    outcome.message = readable_message(error.what());
    return outcome;
}

// `with "a" in the message`, `with "a" and "b" in the message`.
std::string expected_words(const expected_text& expected) {
    std::string words;
    for (std::size_t i = 0; i < expected.parts.size(); ++i) {
        words += (i == 0 ? "\"" : "\" and \"") + expected.parts[i];
    }
    return "with " + words + "\" in the message";
}

bool has_every_part(const std::string& message, const expected_text& expected) {
    for (const auto& part : expected.parts) {
        if (message.find(part) == std::string::npos) return false;
    }
    return true;
}

// The line that tells the student which line makes the check.
std::string check_hint(const check_line& check) {
    if (!check.kit_file.empty()) {
        return "The kit's line `" + check.line + "` in " + check.kit_file +
               " makes this check: keep that file as the kit ships it.";
    }
    return "The stub's line `" + check.line +
           "` makes this check: keep it (or put it back) at the top of your function.";
}

}  // namespace

call_outcome current_exception_outcome() {
    try {
        throw;
    } catch (const attn::not_implemented& stub) {
        call_outcome outcome = thrown(stub);
        outcome.not_implemented = true;
        return outcome;
    } catch (const std::exception& error) {
        return thrown(error);
    } catch (...) {
        call_outcome outcome;
        outcome.returned = false;
        outcome.type = "something that is not a std::exception";
        return outcome;
    }
}

call_outcome expected_type_outcome(const std::exception& error) {
    call_outcome outcome = thrown(error);
    outcome.expected_type = true;
    return outcome;
}

check_verdict rejection_verdict(const rejection& spec, const call_outcome& valid,
                                const call_outcome& invalid) {
    const auto threw = [](const call_outcome& outcome) {
        return " threw " + outcome.type +
               (outcome.message.empty() ? "" : ": \"" + outcome.message + "\"");
    };
    check_verdict verdict;
    verdict.not_implemented = valid.not_implemented;
    if (valid.not_implemented) {
        verdict.message =
            valid.message + "; its argument checks are tested once it returns a value";
    } else if (!valid.returned) {
        verdict.message = spec.valid_call + threw(valid) +
                          " on valid input; once it returns, this test checks that " +
                          spec.invalid_call + " rejects " + spec.bad_input;
    }
    if (!valid.returned) {
        verdict.passed = false;
        verdict.valid_call_failed = true;
        return verdict;
    }
    if (invalid.expected_type && has_every_part(invalid.message, spec.expected)) return verdict;
    verdict.passed = false;
    verdict.message = spec.invalid_call + (invalid.returned ? " returned" : threw(invalid)) +
                      ", but it must throw " + spec.error_type + " for " + spec.bad_input + ", " +
                      expected_words(spec.expected) + ".\n" + check_hint(spec.check);
    return verdict;
}

check_verdict broken_rejection(const rejection& spec) {
    check_verdict verdict;
    verdict.passed = false;
    verdict.valid_call_failed = true;  // the test stops
    verdict.kit_error = true;
    verdict.message = spec.check.kit_error;
    return verdict;
}

void note_check(const check_verdict& verdict) {
    if (verdict.passed) return;
    // A valid call that threw left the check untested: the value cases report that throw.
    const char* kind = verdict.kit_error           ? "kit"
                       : verdict.not_implemented   ? "not_implemented"
                       : verdict.valid_call_failed ? "check_unreached"
                                                   : "check";
    note_failure(verdict.message, {kind, "", {}});
}

}  // namespace attn::kit
