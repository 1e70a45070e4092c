// kit/core/src/compare.cpp — the tensor comparison and its teaching explanation.
#include "kit/compare.hpp"

#include "attn/tensor.hpp"
#include "kit/error_shape.hpp"
#include "kit/student_code.hpp"
#include "kit/torch_format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <sstream>

namespace attn::kit {
namespace {

constexpr std::size_t mismatches_listed = 5;

struct mismatch {
    std::size_t flat_index;
    double actual;
    double expected;
    double times_tolerance;  // |actual - expected| / allowed; infinite for nan, inf or exact dtypes
};

// Per element: the largest |got - expected| allowed. Exact (0) for int64 and bool; for
// float32 the tolerance rule with the golden's error scale. `scale` may have another shape
// than `expected` only when diagnosing a mistake of another shape: its largest value is used.
// Against a recorded mistake (`of_mistake`) the scale is at least the mistake's own |value|:
// its values carry the roundoff of their magnitude, which may be far above the answer's (exp
// of the raw scores, a row dotted with itself), as tools/record measures (with_magnitudes).
class allowance {
public:
    allowance(const expected_golden& golden, const std::vector<std::size_t>& shape,
              bool of_mistake = false)
        : golden_(golden), exact_(golden.tensor.index() != 0), of_mistake_(of_mistake) {
        const auto& scale = golden.scale;
        same_shape_ = std::vector<std::size_t>(scale.shape().begin(), scale.shape().end()) == shape;
        for (const float s : scale) {
            if (std::isfinite(s)) uniform_scale_ = std::max(uniform_scale_, static_cast<double>(s));
        }
    }
    bool exact() const { return exact_; }
    double at(std::size_t i, double expected) const {
        if (exact_) return 0.0;
        const double scale = golden_.scale.size() == 0 ? std::nan("")
                             : same_shape_             ? golden_.scale.data()[i]
                                                       : uniform_scale_;
        // Where the golden itself is nan or inf its scale is too; a recorded mistake compared
        // there is measured against its own value.
        if (!std::isfinite(scale)) return golden_.tolerance.allowed(expected);
        return golden_.tolerance.allowed(of_mistake_ ? std::max(scale, std::abs(expected)) : scale);
    }

private:
    const expected_golden& golden_;
    bool exact_;
    bool of_mistake_;
    bool same_shape_ = false;
    double uniform_scale_ = 0.0;
};

// NaN matches NaN and an infinity the same infinity, as in torch.testing.assert_close(
// equal_nan=True); anything else follows the tolerance rule.
bool values_match(double actual, double expected, double allowed) {
    if (std::isnan(actual) || std::isnan(expected))
        return std::isnan(actual) && std::isnan(expected);
    if (std::isinf(actual) || std::isinf(expected)) return actual == expected;
    return std::abs(actual - expected) <= allowed;
}

std::vector<mismatch> find_mismatches(const any_tensor& actual, const any_tensor& expected,
                                      const allowance& allowed) {
    const auto got = values_of(actual);
    const auto want = values_of(expected);
    std::vector<mismatch> found;
    for (std::size_t i = 0; i < want.size(); ++i) {
        const double limit = allowed.at(i, want[i]);
        if (values_match(got[i], want[i], limit)) continue;
        const bool measurable = std::isfinite(got[i]) && std::isfinite(want[i]) && limit > 0;
        found.push_back({i, got[i], want[i],
                         measurable ? std::abs(got[i] - want[i]) / limit
                                    : std::numeric_limits<double>::infinity()});
    }
    return found;
}

bool same_type_and_shape(const any_tensor& a, const any_tensor& b) {
    return a.index() == b.index() && shape_of(a) == shape_of(b);
}

bool equals_mistake(const any_tensor& actual, const known_mistake& mistake,
                    const expected_golden& golden) {
    return same_type_and_shape(actual, mistake.tensor) &&
           find_mismatches(actual, mistake.tensor, allowance(golden, shape_of(actual), true))
               .empty();
}

// The recorded mistake `actual` equals, or null; every other recorded mistake goes into
// `ruled_out`. A mistake that another one gives the same tensor for on this case (ambiguous)
// is not named: saying one of the two would be a guess.
const known_mistake* diagnose(const any_tensor& actual, const expected_golden& golden,
                              comparison& verdict) {
    const known_mistake* named = nullptr;
    bool matched = false;
    for (const auto& mistake : golden.mistakes) {
        if (!matched && equals_mistake(actual, mistake, golden)) {
            matched = true;
            if (mistake.ambiguous) {
                verdict.ambiguous_with.push_back(mistake.name);
            } else {
                named = &mistake;
            }
            continue;
        }
        if (matched && mistake.ambiguous && equals_mistake(actual, mistake, golden)) {
            verdict.ambiguous_with.push_back(mistake.name);
        } else {
            verdict.ruled_out.push_back(mistake.name);
        }
    }
    return named;
}

// The multi-index of a flat (row-major) position.
std::vector<std::size_t> multi_index(std::size_t flat, const std::vector<std::size_t>& shape) {
    std::vector<std::size_t> index(shape.size());
    for (std::size_t d = shape.size(); d-- > 0;) {
        index[d] = flat % shape[d];
        flat /= shape[d];
    }
    return index;
}

// A value of `tensor`'s dtype as a message shows it: an int64 exactly ("2,360,064"), a bool as
// Python prints it, a float32 to six significant digits.
std::string shown(double value, const any_tensor& tensor) {
    if (tensor.index() == 1) return exact_integer(value);
    if (tensor.index() == 2) return value != 0 ? "True" : "False";
    return message_number(value);
}

std::string times(double ratio, bool exact) {
    if (exact) return "must be equal";
    if (!std::isfinite(ratio)) return "nan or inf is never within tolerance";
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.3g× the tolerance", ratio);
    return buffer;
}

std::string indented(const std::string& text, const std::string& indent) {
    std::string out = indent;
    for (char c : text) {
        out += c;
        if (c == '\n') out += indent;
    }
    return out;
}

std::string both_tensors(const any_tensor& actual, const any_tensor& expected) {
    return "\n  got:\n" + indented(torch_repr(actual), "    ") + "\n  expected:\n" +
           indented(torch_repr(expected), "    ");
}

std::string tolerance_line(const expected_golden& golden) {
    if (golden.tensor.index() != 0)
        return "\n  " + dtype_name(golden.tensor) + " values must be equal";
    const auto& t = golden.tolerance;
    // In words, not as atol and rtol: a student reads why a difference is allowed at all.
    std::string line = "\n  allowed: |got - expected| up to " + message_number(t.atol) + " + " +
                       message_number(t.rtol) + " × scale, float32's rounding in sums of " +
                       std::to_string(t.reduction) +
                       " values (scale: the magnitude of what was summed)";
    if (t.factor != 1.0) line += ", times " + message_number(t.factor) + ": " + t.reason;
    return line;
}

void name_the_mistake(comparison& verdict, const known_mistake* mistake) {
    if (!mistake) return;
    verdict.mistake = mistake->name;
    verdict.hint = mistake->hint;
    verdict.mistake_id = mistake->id;
    verdict.mistake_family = mistake->family;
}

// The exercise files are compiled with -ftrivial-auto-var-init=pattern (AttnExercise.cmake):
// a float read before it is set holds 0xFEFEFEFE, -1.69e38, on every machine. What is computed
// from it keeps that magnitude, or, divided by it, becomes tiny: weights near 1e-39 (denormals,
// which would pass for 0), and their sum near 1e-38. No correct answer of the kit comes near
// the first where its golden does not. The second shows as EVERY value tiny (below
// uninitialised_tiny, far above what x / -1.69e38 gives for any |x| < 1e6) where the answer is
// above 1e-20, which no float32 rounding or slip of arithmetic gives.
// A softmax of large scores (a real mistake) leaves some tiny values beside values near 1, and
// a result left at 0 (a recorded mistake) has no tiny value at all.
constexpr double uninitialised_huge = 1e37, uninitialised_tiny = 1e-30;

bool looks_uninitialised(const any_tensor& actual, const any_tensor& expected) {
    if (actual.index() != 0 || expected.index() != 0) return false;
    const auto got = values_of(actual), want = values_of(expected);
    bool any_tiny = false, all_tiny = true;
    for (std::size_t i = 0; i < got.size() && i < want.size(); ++i) {
        const double g = std::abs(got[i]), w = std::abs(want[i]);
        if (std::isfinite(g) && g > uninitialised_huge && !(w > uninitialised_huge)) return true;
        if (!(w > 1e-20)) continue;  // where the answer is (nearly) 0, any small value is fine
        const bool tiny = g != 0 && g < uninitialised_tiny;
        any_tiny = any_tiny || tiny;
        all_tiny = all_tiny && (tiny || g == 0);
    }
    return any_tiny && all_tiny;
}

constexpr const char* uninitialised_diagnosis =
    "values near -1.7e38, or tiny ones (about 1e-39) where the answer is not 0: the first is "
    "what the kit's build puts in a variable read before it is set, the second what dividing "
    "by such a variable gives. A total declared without a value (`float total;` then `total "
    "+= ...`)? Start it at 0: `float total = 0.0f;`";

}  // namespace

comparison compare(const any_tensor& actual, const expected_golden& expected) {
    comparison verdict;
    verdict.ruled_out = expected.throws;  // their code gives no result here: this one is not it
    const auto expected_shape = shape_of(expected.tensor);
    verdict.got_shape = shape_of(actual);
    verdict.expected_shape = expected_shape;
    verdict.got_dtype = dtype_name(actual);
    verdict.expected_dtype = dtype_name(expected.tensor);
    if (!same_type_and_shape(actual, expected.tensor)) {
        name_the_mistake(verdict, diagnose(actual, expected, verdict));
        const bool dtype_differs = actual.index() != expected.tensor.index();
        verdict.reason = dtype_differs ? "has dtype " + dtype_name(actual) + ", expected " +
                                             dtype_name(expected.tensor)
                                       : "has shape " + shape_string(shape_of(actual)) +
                                             ", expected " + shape_string(expected_shape);
        verdict.withheld_reason =
            dtype_differs
                ? "has dtype " + dtype_name(actual) + ", not the expected dtype"
                : "has shape " + shape_string(shape_of(actual)) + ", not the expected shape";
        verdict.details = both_tensors(actual, expected.tensor);
        return verdict;
    }
    const allowance allowed_rule(expected, expected_shape);
    const auto mismatches = find_mismatches(actual, expected.tensor, allowed_rule);
    if (mismatches.empty()) {
        verdict.passed = true;
        for (const auto& mistake : expected.mistakes) verdict.ruled_out.push_back(mistake.name);
        return verdict;
    }
    if (looks_uninitialised(actual, expected.tensor)) {
        // A pattern value that happens to equal a recorded mistake (all zeros) is not it.
        verdict.diagnosis = verdict.withheld_diagnosis = uninitialised_diagnosis;
        verdict.diagnosis_id = verdict.withheld_diagnosis_id = "uninitialised";
    } else {
        name_the_mistake(verdict, diagnose(actual, expected, verdict));
        const auto got = values_of(actual), want = values_of(expected.tensor);
        std::vector<double> allowed(want.size());
        for (std::size_t i = 0; i < want.size(); ++i) allowed[i] = allowed_rule.at(i, want[i]);
        error_values values{got, want, expected_shape, allowed, expected.tensor.index() == 1};
        auto found = describe_error(values);
        verdict.diagnosis = std::move(found.text);
        verdict.diagnosis_id = std::move(found.id);
        values.withhold_expected = true;
        found = describe_error(values);
        verdict.withheld_diagnosis = std::move(found.text);
        verdict.withheld_diagnosis_id = std::move(found.id);
    }
    const mismatch* worst = &mismatches.front();
    for (const auto& m : mismatches) {
        if (m.times_tolerance > worst->times_tolerance) worst = &m;
    }
    verdict.differing = mismatches.size();
    for (const auto& m : mismatches) verdict.beyond.push_back(m.flat_index);
    verdict.worst = {{multi_index(worst->flat_index, expected_shape), worst->actual,
                      worst->expected, worst->times_tolerance}};
    const any_tensor& dtype = expected.tensor;
    const std::string by_how_much =
        dtype.index() == 1 ? "; " + integer_difference(worst->actual, worst->expected) : "";
    const std::string got_and_expected =
        "got " + shown(worst->actual, dtype) + ", expected " + shown(worst->expected, dtype) +
        " (" + times(worst->times_tolerance, allowed_rule.exact()) + by_how_much + ")";
    std::ostringstream details;
    details << "\n  shape: " << shape_string(expected_shape) << " as expected"
            << tolerance_line(expected);
    const std::string got_beyond = "got " + shown(worst->actual, dtype) + ", beyond the tolerance";
    if (expected_shape.empty()) {  // a 0-d value: no position to name, no list to show
        verdict.reason = got_and_expected;
        verdict.withheld_reason = got_beyond;
        verdict.details = details.str() + both_tensors(actual, expected.tensor);
        return verdict;
    }
    const std::string where = std::to_string(mismatches.size()) + " of " +
                              std::to_string(values_of(expected.tensor).size()) +
                              " values differ; worst at " +
                              index_text(worst->flat_index, expected_shape) + ": ";
    verdict.reason = where + got_and_expected;
    verdict.withheld_reason = where + got_beyond;
    details << "\n  first mismatches:";
    for (std::size_t i = 0; i < mismatches.size() && i < mismatches_listed; ++i) {
        const auto& m = mismatches[i];
        details << "\n    " << index_text(m.flat_index, expected_shape) << " got "
                << shown(m.actual, dtype) << ", expected " << shown(m.expected, dtype);
        if (dtype.index() != 2)
            details << ", |diff| "
                    << (dtype.index() == 1 ? exact_integer(std::abs(m.actual - m.expected))
                                           : message_number(std::abs(m.actual - m.expected)));
    }
    if (mismatches.size() > mismatches_listed) {
        details << "\n    ... and " << mismatches.size() - mismatches_listed << " more";
    }
    verdict.details = details.str() + both_tensors(actual, expected.tensor);
    return verdict;
}

std::vector<const comparison*> decide_names(
    const std::vector<case_comparison>& cases,
    const std::set<std::pair<std::string, std::string>>& ruled_out) {
    std::vector<const comparison*> changed;
    for (const auto& each : cases) {
        if (!each.verdict->mistake.empty() &&
            ruled_out.count({each.kind, each.verdict->mistake}) != 0) {
            *each.verdict = take_back_name(std::move(*each.verdict));
            changed.push_back(each.verdict);
        }
    }
    // (kind, mistake) -> the cases that name it
    std::map<std::pair<std::string, std::string>, std::vector<const case_comparison*>> confirmed;
    for (const auto& each : cases) {
        if (!each.verdict->mistake.empty())
            confirmed[{each.kind, each.verdict->mistake}].push_back(&each);
    }
    const auto another_case = [&](const case_comparison& each,
                                  const std::string& name) -> const case_comparison* {
        const auto found = confirmed.find({each.kind, name});
        if (found == confirmed.end()) return nullptr;
        for (const auto* naming : found->second) {
            if (naming->case_name != each.case_name) return naming;
        }
        return nullptr;
    };
    for (const auto& each : cases) {
        comparison& verdict = *each.verdict;
        if (verdict.passed || !verdict.mistake.empty()) continue;
        for (const auto& name : verdict.ambiguous_with) {
            const case_comparison* sibling = another_case(each, name);
            if (sibling == nullptr) continue;
            const comparison& naming = *sibling->verdict;
            verdict.same_slip_as = sibling->case_name;
            verdict.same_slip = naming.mistake;
            verdict.hint = naming.hint;
            verdict.mistake_id = naming.mistake_id;
            verdict.mistake_family = naming.mistake_family;
            changed.push_back(each.verdict);
            break;
        }
    }
    return changed;
}

comparison take_back_name(comparison verdict) {
    verdict.taken_back = std::move(verdict.mistake);
    verdict.mistake.clear();
    verdict.hint.clear();
    verdict.mistake_id.clear();
    verdict.mistake_family.clear();
    return verdict;
}

std::string headline(const std::string& call, const comparison& verdict) {
    std::string line = call + ": " + verdict.reason;
    if (!verdict.mistake.empty()) return line + " — looks like: " + verdict.mistake;
    if (!verdict.same_slip.empty())
        return line + " — the same slip as " + verdict.same_slip_as +
               " (looks like: " + verdict.same_slip + ")";
    if (!verdict.diagnosis.empty()) return line + " — " + verdict.diagnosis;
    return line;
}

std::string explain(const std::string& what, const expected_golden& expected,
                    const comparison& verdict, const std::string& case_name) {
    const std::string call = student_words(what);
    if (verdict.passed) return call + " matches golden " + expected.path;
    std::string text = headline(call, verdict);
    if (!case_name.empty() || !expected.source.empty()) {
        text += "\n  case" + (case_name.empty() ? "" : " " + case_name) +
                (expected.source.empty() ? "" : ": " + expected.source);
    }
    // PyTorch's answer, recorded (docs/maintaining.md), and how to print it: "golden" is the
    // kit's word, not the student's.
    text += "\n  PyTorch's answer: " + expected.path;
    const auto folder_end = expected.path.find('/');
    if (!case_name.empty() && folder_end != std::string::npos && folder_end >= 2)
        text +=
            " (`tools/kit show " + expected.path.substr(0, 2) + " " + case_name + "` prints it)";
    if (!verdict.hint.empty()) text += "\n  hint: " + verdict.hint;
    return text + verdict.details;
}

}  // namespace attn::kit
