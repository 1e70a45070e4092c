// kit/src/tensor_assert.cpp — the tensor comparison and its teaching failure message.
#include "kit/tensor_assert.hpp"

#include "attn/tensor.hpp"
#include "kit/torch_format.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace attn::kit {
namespace {

constexpr std::size_t mismatches_listed = 5;

struct Mismatch {
    std::size_t flat_index;
    double actual;
    double expected;
    double times_tolerance;  // |actual - expected| / allowed; infinite for nan or inf
};

// NaN matches NaN and an infinity matches the same infinity, as in
// torch.testing.assert_close(equal_nan=True); anything else follows the tolerance rule.
bool values_match(double actual, double expected, const Tolerance& tolerance) {
    if (std::isnan(actual) || std::isnan(expected))
        return std::isnan(actual) && std::isnan(expected);
    if (std::isinf(actual) || std::isinf(expected)) return actual == expected;
    return std::abs(actual - expected) <= tolerance.allowed(expected);
}

bool same_shape(const xt::xarray<float>& a, const xt::xarray<float>& b) {
    return a.dimension() == b.dimension() &&
           std::equal(a.shape().begin(), a.shape().end(), b.shape().begin());
}

std::vector<Mismatch> find_mismatches(const xt::xarray<float>& actual,
                                      const xt::xarray<float>& expected,
                                      const Tolerance& tolerance) {
    std::vector<Mismatch> found;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const double a = actual.data()[i];
        const double e = expected.data()[i];
        if (values_match(a, e, tolerance)) continue;
        const bool finite = std::isfinite(a) && std::isfinite(e);
        found.push_back({i, a, e,
                         finite ? std::abs(a - e) / tolerance.allowed(e)
                                : std::numeric_limits<double>::infinity()});
    }
    return found;
}

bool all_match(const xt::xarray<float>& actual, const xt::xarray<float>& expected,
               const Tolerance& tolerance) {
    return same_shape(actual, expected) && find_mismatches(actual, expected, tolerance).empty();
}

const KnownMistake* diagnose(const xt::xarray<float>& actual,
                             const std::vector<KnownMistake>& mistakes,
                             const Tolerance& tolerance) {
    for (const auto& mistake : mistakes) {
        if (all_match(actual, mistake.tensor, tolerance)) return &mistake;
    }
    return nullptr;
}

// "[4, 1]": the multi-index of a flat (row-major) position, as a student would index it.
std::string index_string(std::size_t flat, const xt::xarray<float>::shape_type& shape) {
    std::vector<std::size_t> index(shape.size());
    for (std::size_t d = shape.size(); d-- > 0;) {
        index[d] = flat % shape[d];
        flat /= shape[d];
    }
    std::ostringstream out;
    out << '[';
    for (std::size_t d = 0; d < index.size(); ++d) out << (d ? ", " : "") << index[d];
    out << ']';
    return out.str();
}

std::string number(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6g", value);
    return buffer;
}

std::string times(double ratio) {
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

std::string hint_line(const KnownMistake* mistake) {
    if (!mistake) return "";
    return "\n  hint: " + mistake->hint;
}

std::string both_tensors(const xt::xarray<float>& actual, const xt::xarray<float>& expected) {
    return "\n  got:\n" + indented(torch_repr(actual), "    ") + "\n  expected:\n" +
           indented(torch_repr(expected), "    ");
}

}  // namespace

::testing::AssertionResult tensors_match(const std::string& what, const xt::xarray<float>& actual,
                                         const xt::xarray<float>& expected,
                                         const Tolerance& tolerance,
                                         const std::vector<KnownMistake>& mistakes) {
    const KnownMistake* mistake = nullptr;
    std::ostringstream message;
    if (!same_shape(actual, expected)) {
        mistake = diagnose(actual, mistakes, tolerance);
        message << what << " has shape " << shape_string(actual.shape()) << ", expected "
                << shape_string(expected.shape())
                << (mistake ? " — looks like: " + mistake->name : "") << hint_line(mistake)
                << both_tensors(actual, expected);
        return ::testing::AssertionFailure() << message.str();
    }
    const auto mismatches = find_mismatches(actual, expected, tolerance);
    if (mismatches.empty()) return ::testing::AssertionSuccess();

    mistake = diagnose(actual, mistakes, tolerance);
    const Mismatch* worst = &mismatches.front();
    for (const auto& m : mismatches) {
        if (m.times_tolerance > worst->times_tolerance) worst = &m;
    }
    message << what << ": " << mismatches.size() << " of " << expected.size()
            << " values differ; worst at " << index_string(worst->flat_index, expected.shape())
            << ": got " << number(worst->actual) << ", expected " << number(worst->expected) << " ("
            << times(worst->times_tolerance) << ")"
            << (mistake ? " — looks like: " + mistake->name : "") << hint_line(mistake)
            << "\n  shape: " << shape_string(expected.shape()) << " as expected"
            << "\n  tolerance: |got - expected| <= atol + rtol * |expected| with atol = "
            << number(tolerance.atol) << ", rtol = " << number(tolerance.rtol)
            << " (sums of length " << tolerance.reduction << ")"
            << "\n  first mismatches:";
    for (std::size_t i = 0; i < mismatches.size() && i < mismatches_listed; ++i) {
        const auto& m = mismatches[i];
        message << "\n    " << index_string(m.flat_index, expected.shape()) << " got "
                << number(m.actual) << ", expected " << number(m.expected) << ", |diff| "
                << number(std::abs(m.actual - m.expected));
    }
    if (mismatches.size() > mismatches_listed) {
        message << "\n    ... and " << mismatches.size() - mismatches_listed << " more";
    }
    message << both_tensors(actual, expected);
    return ::testing::AssertionFailure() << message.str();
}

::testing::AssertionResult tensor_matches_golden(const char* actual_expression,
                                                 const char* /*golden_expression*/,
                                                 const xt::xarray<float>& actual,
                                                 const std::string& golden_name) {
    try {
        const GoldenStore& store = GoldenStore::instance();
        const GoldenEntry& golden = store.entry(golden_name);
        return tensors_match(std::string(actual_expression) + " vs golden " + golden.path + " (" +
                                 golden.source + ")",
                             actual, store.load(golden_name),
                             Tolerance::for_reduction(golden.reduction), store.mistakes_of(golden));
    } catch (const golden_error& error) {
        return ::testing::AssertionFailure() << error.what();
    }
}

::testing::AssertionResult result_matches_golden(const char*, const char*, const char*,
                                                 const char* call, const xt::xarray<float>& result,
                                                 const std::string& golden_name) {
    return tensor_matches_golden(call, "", result, golden_name);
}

}  // namespace attn::kit
