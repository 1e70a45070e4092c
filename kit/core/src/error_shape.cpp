// kit/core/src/error_shape.cpp — the shape of got − expected, as a teacher would read it.
#include "kit/error_shape.hpp"

#include "kit/torch_format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

namespace attn::kit {
// A namespace of its own: kit_core is one unity translation unit, and compare.cpp has helpers
// of the same names.
namespace {
namespace error_shape {

constexpr std::size_t most_listed = 4;  // values or positions a sentence lists

std::string integer_text(double value) { return exact_integer(value); }

std::string join(const std::vector<std::string>& parts, const std::string& separator = ", ") {
    std::string text;
    for (std::size_t i = 0; i < parts.size(); ++i) text += (i ? separator : "") + parts[i];
    return text;
}

std::vector<std::size_t> strides_of(const std::vector<std::size_t>& shape) {
    std::vector<std::size_t> strides(shape.size(), 1);
    for (std::size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
    return strides;
}

class error_reader {
public:
    explicit error_reader(const error_values& v)
        : v_(v), n_(v.expected.size()), strides_(strides_of(v.shape)) {}

    error_description describe() const {
        using check = std::pair<const char*, std::string (error_reader::*)() const>;
        // For a hidden case: only what tells nothing of the expected values.
        static const std::vector<check> withheld = {
            {"negative_count", &error_reader::negative_count},
            {"not_finite", &error_reader::not_finite},
            {"unmasked_future", &error_reader::unmasked_future},
            {"rows_not_normalised", &error_reader::rows_not_normalised}};
        static const std::vector<check> every = {
            {"integer_overflow", &error_reader::integer_overflow},
            {"not_finite", &error_reader::not_finite},
            {"exact_factor", &error_reader::exact_factor},
            {"unmasked_future", &error_reader::unmasked_future},
            {"rows_not_normalised", &error_reader::rows_not_normalised},
            {"constant_offset", &error_reader::constant_offset},
            {"transposed", &error_reader::transposed},
            {"permuted_slices", &error_reader::permuted_slices},
            {"values_misplaced", &error_reader::values_misplaced},
            {"one_slice", &error_reader::one_slice}};
        for (const auto& [id, find] : v_.withhold_expected ? withheld : every) {
            std::string sentence = (this->*find)();
            if (!sentence.empty()) return {id, std::move(sentence)};
        }
        return {};
    }

private:
    // Within the tolerance (nan matches nan, an infinity itself), with room for the rounding
    // of a value computed another way (a multiple, a sum in another order).
    bool close(double got, double want, double allowed) const {
        if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
        if (std::isinf(got) || std::isinf(want)) return got == want;
        if (v_.integer) return got == want;
        return std::abs(got - want) <= 2 * allowed + 1e-6 * std::abs(want);
    }
    bool matches(std::size_t i) const { return close(v_.got[i], v_.expected[i], v_.allowed[i]); }
    bool all_finite() const {
        return std::all_of(v_.got.begin(), v_.got.end(),
                           [](double x) { return std::isfinite(x); }) &&
               std::all_of(v_.expected.begin(), v_.expected.end(),
                           [](double x) { return std::isfinite(x); });
    }
    std::size_t rank() const { return v_.shape.size(); }
    std::size_t index_on(std::size_t flat, std::size_t axis) const {
        return flat / strides_[axis] % v_.shape[axis];
    }
    std::string where(std::size_t flat) const { return index_text(flat, v_.shape); }
    std::string every() const { return n_ == 1 ? "the value is" : "every value is"; }

    // ---- counts ---------------------------------------------------------------------------

    // 32-bit arithmetic that wrapped: the answer minus a multiple of 2^32, or a count < 0.
    std::string integer_overflow() const {
        if (!v_.integer) return "";
        constexpr std::int64_t wrap = std::int64_t{1} << 32;
        bool wrapped = true, any = false;
        std::optional<std::size_t> negative;
        for (std::size_t i = 0; i < n_; ++i) {
            const auto got = static_cast<std::int64_t>(v_.got[i]);
            const auto want = static_cast<std::int64_t>(v_.expected[i]);
            if (got == want) continue;
            any = true;
            wrapped = wrapped && (got - want) % wrap == 0;
            if (got < 0 && want >= 0 && !negative) negative = i;
        }
        if (!any) return "";
        const std::string advice =
            ": a product computed in 32 bits (int or unsigned) overflowed. Multiply in "
            "std::int64_t: convert the first factor before multiplying";
        if (wrapped) {
            const std::size_t i = first_mismatch();
            return (n_ == 1 ? "got " : "at " + where(i) + " got ") + integer_text(v_.got[i]) +
                   ", the answer minus a multiple of 2^32" + advice;
        }
        if (negative) {
            return (n_ == 1 ? "got " : "at " + where(*negative) + " got ") +
                   integer_text(v_.got[*negative]) + ", a negative count" + advice;
        }
        return "";
    }

    std::string negative_count() const {
        if (!v_.integer) return "";
        for (std::size_t i = 0; i < n_; ++i) {
            if (v_.got[i] < 0 && v_.expected[i] >= 0)
                return "a negative count where the answer is positive: a product computed in 32 "
                       "bits (int) overflowed. Multiply in std::int64_t";
        }
        return "";
    }

    // ---- nan and inf ----------------------------------------------------------------------

    std::string not_finite() const {
        std::size_t nans = 0, infs = 0;
        std::optional<std::size_t> first_nan, first_inf;
        for (std::size_t i = 0; i < n_; ++i) {
            if (!std::isfinite(v_.expected[i])) continue;
            if (std::isnan(v_.got[i])) {
                ++nans;
                if (!first_nan) first_nan = i;
            } else if (std::isinf(v_.got[i])) {
                ++infs;
                if (!first_inf) first_inf = i;
            }
        }
        const auto count = [this](std::size_t k) {
            return k == 1 ? std::string(n_ == 1 ? "" : " (1 value)")
                          : " (" + std::to_string(k) + " values)";
        };
        if (nans) {
            return "nan" + (n_ == 1 ? "" : " at " + where(*first_nan)) + count(nans) +
                   " where the answer is a number: a 0/0, 0 * inf or inf - inf. Look for exp() "
                   "of a large score (subtract the row's max first), a sum of exps that "
                   "underflowed to 0 (a running max that starts at 0, not -inf), a mask "
                   "multiplied in (0 * -inf is nan: set the masked scores to -inf instead), or "
                   "a division by 0 (a sum that is 0, 1 - p with p = 1)";
        }
        if (infs) {
            return "inf" + (n_ == 1 ? "" : " at " + where(*first_inf)) + count(infs) +
                   " where the answer is a number: an overflow (exp() of a large score without "
                   "subtracting the max first) or a division by 0";
        }
        return "";
    }

    // ---- got = f × expected ---------------------------------------------------------------

    bool scaled_by(double f) const {
        for (std::size_t i = 0; i < n_; ++i) {
            if (v_.integer) {
                if (v_.got[i] != f * v_.expected[i]) return false;
            } else if (std::abs(v_.got[i] - f * v_.expected[i]) >
                       2 * std::max(1.0, std::abs(f)) * v_.allowed[i] +
                           1e-5 * std::abs(f * v_.expected[i])) {
                return false;
            }
        }
        return true;
    }

    std::string exact_factor() const {
        if (!all_finite()) return "";
        std::size_t pivot = 0;
        for (std::size_t i = 0; i < n_; ++i) {
            if (std::abs(v_.expected[i]) > std::abs(v_.expected[pivot])) pivot = i;
        }
        const double want = v_.expected[pivot];
        if (want == 0 || std::abs(want) <= 2 * v_.allowed[pivot]) return "";
        const double ratio = v_.got[pivot] / want;
        if (ratio == 0 || !std::isfinite(ratio)) return "";
        const std::string what = every();
        for (long q = 1; q <= 64; ++q) {
            const double p = std::round(ratio * static_cast<double>(q));
            if (p == 0 || std::abs(p) > 4096 || p == static_cast<double>(q)) continue;
            if (std::abs(ratio * static_cast<double>(q) - p) > 1e-4 * std::abs(p)) continue;
            if (std::gcd(static_cast<long>(std::abs(p)), q) != 1) continue;
            if (!scaled_by(p / static_cast<double>(q))) return "";
            return what + " " + factor_text(static_cast<long>(p), q);
        }
        // √k: a scale 1/√k (attention's 1/√d) applied once too often, or left out.
        for (long k = 2; k <= 4096; ++k) {
            const double root = std::sqrt(static_cast<double>(k));
            if (std::round(root) == root) continue;
            for (const double f : {root, 1 / root}) {
                if (std::abs(ratio - f) > 1e-4 * f || !scaled_by(f)) continue;
                return what + (f > 1 ? " √" + std::to_string(k) + " = " + message_number(f, 4) +
                                           " times the expected: a scale of 1/√" +
                                           std::to_string(k) + " left out"
                                     : " 1/√" + std::to_string(k) + " = " + message_number(f, 4) +
                                           " times the expected: a scale of 1/√" +
                                           std::to_string(k) + " applied once too often");
            }
        }
        return "";
    }

    static std::string factor_text(long p, long q) {
        if (p == -1 && q == 1)
            return "the expected with its sign flipped: a subtraction the wrong way round, or a "
                   "minus sign too many";
        if (q == 1) {
            return std::to_string(p) + "× the expected: " +
                   (p == 2 ? std::string("something counted twice, or a factor 2 too many")
                           : "multiplied by " + std::to_string(p) +
                                 " once too often (a size such as the batch, the number of "
                                 "heads or the bytes of a value), or counted " +
                                 std::to_string(p) + " times");
        }
        if (p == 1) {
            return "1/" + std::to_string(q) + " of the expected: divided by " + std::to_string(q) +
                   " once too often, or only one of " + std::to_string(q) +
                   " equal parts counted (one head, one sequence of the batch, one of two "
                   "products, the 2 of a multiply-add)";
        }
        return std::to_string(p) + "/" + std::to_string(q) +
               " of the expected: a factor missing from, or added to, the formula";
    }

    // ---- attention weights: rows of a softmax, the future masked --------------------------

    // The expected tensor holds weights: no negative value and every row (last axis) sums
    // to 1.
    bool expected_are_weights() const {
        if (rank() < 1 || v_.shape.back() < 2 || v_.integer || !all_finite()) return false;
        const std::size_t width = v_.shape.back();
        for (std::size_t row = 0; row < n_; row += width) {
            double sum = 0;
            for (std::size_t j = 0; j < width; ++j) {
                if (v_.expected[row + j] < -v_.allowed[row + j]) return false;
                sum += v_.expected[row + j];
            }
            if (std::abs(sum - 1) > 1e-4) return false;
        }
        return true;
    }

    std::string unmasked_future() const {
        if (rank() < 2 || !expected_are_weights()) return "";
        const std::size_t rows = v_.shape[rank() - 2], cols = v_.shape.back();
        if (rows != cols) return "";
        std::optional<std::size_t> leak;
        for (std::size_t i = 0; i < n_; ++i) {
            const std::size_t r = index_on(i, rank() - 2), c = index_on(i, rank() - 1);
            if (c <= r) continue;
            if (v_.expected[i] != 0) return "";  // not a causal mask
            if (!leak && std::abs(v_.got[i]) > v_.allowed[i]) leak = i;
        }
        if (!leak) return "";
        return "weights above the diagonal are not 0 (at " + where(*leak) + ": " +
               (v_.integer ? integer_text(v_.got[*leak]) : message_number(v_.got[*leak], 4)) +
               "): the future is not masked. Token i may attend to tokens 0..i only: set the "
               "scores above the diagonal to -inf before the softmax";
    }

    std::string rows_not_normalised() const {
        if (!expected_are_weights()) return "";
        const std::size_t width = v_.shape.back();
        for (std::size_t row = 0; row < n_; row += width) {
            double sum = 0;
            for (std::size_t j = 0; j < width; ++j) sum += v_.got[row + j];
            if (std::abs(sum - 1) <= 1e-3) continue;
            std::string at = where(row);
            at = at.substr(0, at.rfind(',') == std::string::npos ? 1 : at.rfind(',')) +
                 (rank() == 1 ? "" : ", :]");
            if (rank() == 1) at = "the weights";
            return (rank() == 1 ? "the weights sum" : "row " + at + " sums") + " to " +
                   message_number(sum, 4) +
                   ", not 1: the weights are not normalised along the last axis (divide by the "
                   "row's sum after masking: a mask applied after the softmax must renormalise, "
                   "and a softmax over another axis normalises columns instead)";
        }
        return "";
    }

    // ---- got = expected + a constant, or + a vector along one axis -------------------------

    std::string constant_offset() const {
        if (v_.integer || !all_finite() || n_ < 2) return "";
        const double c = v_.got[0] - v_.expected[0];
        bool everywhere = true;
        for (std::size_t i = 0; i < n_ && everywhere; ++i)
            everywhere = close(v_.got[i] - c, v_.expected[i], v_.allowed[i]);
        if (everywhere) {
            return "every value is off by the same amount (got = expected + " +
                   message_number(c, 4) + "): a constant added or left out, such as a bias";
        }
        if (rank() < 2) return "";
        // The difference depends on one axis only: a bias vector, broadcast over the rest.
        for (std::size_t axis = rank(); axis-- > 0;) {
            // Over a single position of the other axes, any error "depends on one axis".
            if (v_.shape[axis] < 2 || n_ / v_.shape[axis] < 2) continue;
            bool depends_on_axis_only = true;
            std::vector<double> offset(v_.shape[axis]);
            std::vector<bool> seen(v_.shape[axis], false);
            for (std::size_t i = 0; i < n_ && depends_on_axis_only; ++i) {
                const std::size_t k = index_on(i, axis);
                const double d = v_.got[i] - v_.expected[i];
                if (!seen[k]) {
                    seen[k] = true;
                    offset[k] = d;
                } else {
                    depends_on_axis_only =
                        close(v_.got[i] - offset[k], v_.expected[i], v_.allowed[i]);
                }
            }
            if (!depends_on_axis_only) continue;
            std::vector<std::string> listed;
            for (std::size_t k = 0; k < offset.size() && k < most_listed; ++k)
                listed.push_back(v_.integer ? integer_text(offset[k])
                                            : message_number(offset[k], 4));
            if (offset.size() > most_listed) listed.push_back("...");
            const bool features = axis == rank() - 1;
            return "got - expected is the same vector [" + join(listed) + "] at every " +
                   (features ? std::string("row (token)") : "position of the other axes") +
                   ", along axis " + std::to_string(axis) +
                   ": a bias vector added where there is none, or one left out";
        }
        return "";
    }

    // ---- the right values in other places -------------------------------------------------

    std::string transposed() const {
        if (rank() < 2) return "";
        const std::size_t rows = v_.shape[rank() - 2], cols = v_.shape.back();
        if (rows != cols || rows < 2) return "";
        for (std::size_t i = 0; i < n_; ++i) {
            const std::size_t r = index_on(i, rank() - 2), c = index_on(i, rank() - 1);
            const std::size_t mirror =
                i - r * strides_[rank() - 2] - c + c * strides_[rank() - 2] + r;
            if (!close(v_.got[i], v_.expected[mirror], v_.allowed[mirror])) return "";
        }
        return "the result is transposed (got[.., i, j] = expected[.., j, i]): the two indices "
               "swapped where the result is written, or a transpose too many or too few";
    }

    // Slices along one axis (the columns, the rows) in another order: got's slice k is
    // expected's slice order[k].
    std::string permuted_slices() const {
        for (std::size_t axis = rank(); axis-- > 0;) {
            const std::size_t length = v_.shape[axis];
            if (length < 2 || length > 1024) continue;
            std::vector<std::size_t> order(length);
            std::vector<bool> taken(length, false);
            bool found = true, moved = false;
            for (std::size_t k = 0; k < length && found; ++k) {
                found = false;
                for (std::size_t m = 0; m < length && !found; ++m) {
                    if (taken[m] || !same_slice(axis, k, m)) continue;
                    order[k] = m;
                    taken[m] = true;
                    found = true;
                    moved = moved || m != k;
                }
            }
            if (!found || !moved) continue;
            const std::string part = axis + 1 == rank() && rank() > 1 ? "column"
                                     : axis + 2 == rank()             ? "row"
                                                                      : "index";
            return "the right " + part + "s in another order" + along(axis) + ": " +
                   describe_order(order, part) +
                   (part == "column" ? ": the heads or features merged in the wrong order"
                                     : ": an index or loop order mixed up");
        }
        return "";
    }

    std::string along(std::size_t axis) const {
        return rank() > 2 ? " (axis " + std::to_string(axis) + ")" : "";
    }

    bool same_slice(std::size_t axis, std::size_t got_index, std::size_t expected_index) const {
        const std::size_t stride = strides_[axis], block = stride * v_.shape[axis];
        for (std::size_t outer = 0; outer < n_; outer += block) {
            for (std::size_t inner = 0; inner < stride; ++inner) {
                const std::size_t g = outer + got_index * stride + inner;
                const std::size_t e = outer + expected_index * stride + inner;
                if (!close(v_.got[g], v_.expected[e], v_.allowed[e])) return false;
            }
        }
        return true;
    }

    // "reversed", or runs: "0-1 hold expected 2-3, 2-3 hold expected 0-1".
    static std::string describe_order(const std::vector<std::size_t>& order,
                                      const std::string& part) {
        const std::size_t n = order.size();
        bool reversed = true;
        for (std::size_t k = 0; k < n; ++k) reversed = reversed && order[k] == n - 1 - k;
        if (reversed) return "reversed (" + part + " 0 holds the expected last one)";
        std::vector<std::string> runs;
        for (std::size_t start = 0; start < n;) {
            std::size_t end = start;
            while (end + 1 < n && order[end + 1] == order[end] + 1) ++end;
            const auto span = [](std::size_t a, std::size_t b) {
                return a == b ? std::to_string(a) : std::to_string(a) + "-" + std::to_string(b);
            };
            if (order[start] != start) {
                const bool one = start == end;
                runs.push_back(part + (one ? " " : "s ") + span(start, end) +
                               (one ? " holds" : " hold") + " the expected " +
                               span(order[start], order[end]));
            }
            start = end + 1;
        }
        if (runs.size() > most_listed) {
            runs.resize(most_listed);
            runs.push_back("...");
        }
        return join(runs);
    }

    std::string values_misplaced() const {
        if (!all_finite() || n_ < 2) return "";
        std::vector<double> got = v_.got, want = v_.expected;
        std::sort(got.begin(), got.end());
        std::sort(want.begin(), want.end());
        const double allowed = *std::max_element(v_.allowed.begin(), v_.allowed.end());
        for (std::size_t i = 0; i < n_; ++i) {
            if (!close(got[i], want[i], allowed)) return "";
        }
        return "the right values, in the wrong places: look at the indices where each value is "
               "written, and at the order of the loops";
    }

    // Every wrong value lies in one slice: one element, one row, one column.
    std::string one_slice() const {
        std::vector<std::size_t> wrong;
        for (std::size_t i = 0; i < n_; ++i) {
            if (!matches(i)) wrong.push_back(i);
        }
        if (wrong.empty() || n_ < 2 || wrong.size() == n_) return "";
        if (wrong.size() == 1) {
            return "only " + where(wrong.front()) +
                   " is wrong; every other value matches: look at what is special about that "
                   "position (the first or last of a loop, an index off by one)";
        }
        for (std::size_t axis = 0; axis < rank(); ++axis) {
            if (v_.shape[axis] < 2) continue;
            const std::size_t k = index_on(wrong.front(), axis);
            const bool one_index = std::all_of(
                wrong.begin(), wrong.end(), [&](std::size_t i) { return index_on(i, axis) == k; });
            if (!one_index) continue;
            const bool last = k + 1 == v_.shape[axis];
            return "only the values at index " + std::to_string(k) + " of axis " +
                   std::to_string(axis) +
                   (k == 0 ? " (the first)"
                    : last ? " (the last)"
                           : "") +
                   " are wrong; the rest match: look at the loop bounds and indices on that axis";
        }
        return "";
    }

    std::size_t first_mismatch() const {
        for (std::size_t i = 0; i < n_; ++i) {
            if (!matches(i)) return i;
        }
        return 0;
    }

    const error_values& v_;
    std::size_t n_;
    std::vector<std::size_t> strides_;
};

}  // namespace error_shape
}  // namespace

error_description describe_error(const error_values& values) {
    if (values.got.size() != values.expected.size() || values.got.empty()) return {};
    return error_shape::error_reader(values).describe();
}

}  // namespace attn::kit
