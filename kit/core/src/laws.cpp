// kit/core/src/laws.cpp — the variants of a case and the laws checked on them (kit/laws.hpp).
#include "kit/laws.hpp"

#include "attn/tensor.hpp"
#include "kit/torch_format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>

namespace attn::kit {
namespace {
// A namespace of its own: kit_core is one unity translation unit, and compare.cpp's anonymous
// namespace has helpers of the same names.
namespace law_detail {

bool is_causal(const case_law& law) { return law.name == "causal"; }
bool is_order(const case_law& law) { return law.name == "order"; }

void require_known(const case_law& law) {
    if (law.name != "causal" && law.name != "order" && law.name != "batch" && law.name != "heads") {
        throw golden_error("the case set names a law \"" + law.name +
                           "\", which this kit does not know; update the kit or re-record "
                           "the case set with its tools/record");
    }
}

// A row-major shape seen along one axis: `outer` blocks of `size` entries of `inner` values.
struct along {
    std::size_t outer = 1, size = 0, inner = 1;
    along(const std::vector<std::size_t>& shape, std::size_t axis, const std::string& what) {
        if (axis >= shape.size()) {
            throw golden_error(what + " has shape " + shape_string(shape) + ", which has no axis " +
                               std::to_string(axis) +
                               " for its law; the test and tools/record "
                               "disagree");
        }
        for (std::size_t d = 0; d < axis; ++d) outer *= shape[d];
        size = shape[axis];
        for (std::size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
    }
    std::size_t position(std::size_t flat) const { return flat / inner % size; }
};

// "x", "keys and values", "queries, keys and values".
std::string input_names(const case_law& law) {
    std::string text;
    for (std::size_t i = 0; i < law.inputs.size(); ++i) {
        text += (i == 0 ? "" : i + 1 == law.inputs.size() ? " and " : ", ") + law.inputs[i];
    }
    return text;
}

// The same test of two values as the comparison with a golden (kit/compare.hpp): NaN matches
// NaN, an infinity the same infinity, anything else within `allowed`.
bool values_match(double a, double b, double allowed) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    if (std::isinf(a) || std::isinf(b)) return a == b;
    return std::abs(a - b) <= allowed;
}

// The largest difference allowed between two results at flat position i: twice the golden's
// tolerance there, as each of the two may be one tolerance from the exact answer (a variant
// sums in another order, or with other BLAS blocks). Exact for int64 and bool.
std::function<double(std::size_t)> allowance_of(const expected_golden& golden,
                                                const std::vector<double>& base) {
    if (golden.tensor.index() != 0 || golden.scale.size() != base.size()) {
        return [](std::size_t) { return 0.0; };
    }
    return [&golden, &base](std::size_t i) {
        const double scale = golden.scale.data()[i];
        return 2 * golden.tolerance.allowed(std::isfinite(scale) ? scale : base[i]);
    };
}

std::string checked_line(const case_law& law, std::size_t size) {
    if (is_causal(law) && size >= 2) {
        const std::size_t j = first_changed_token(size);
        return "\n  how it was checked: the case ran again with tokens " + std::to_string(j) +
               ".. of " + input_names(law) + " replaced by tokens 0.. (token t by token t - " +
               std::to_string(j) + "); the output of tokens 0.." + std::to_string(j - 1) +
               " must not change beyond twice the tolerance of PyTorch's answer (each result may "
               "be one "
               "from the exact answer), and that of the later tokens must change (they see other "
               "tokens)";
    }
    if (is_causal(law)) return "";
    if (is_order(law)) {
        return "\n  how it was checked: the case ran again with the tokens of " + input_names(law) +
               " in reverse order; the output of each token must be what it was (within twice "
               "the tolerance of PyTorch's answer: each result may be one from the exact answer)";
    }
    const std::string one = law.name == "batch" ? "sequence" : "head";
    return "\n  how it was checked: the case ran again on the last " + one + " of " +
           input_names(law) + " alone (" + (law.name == "batch" ? "batch size" : "heads") +
           " 1); its output must be " + one + " " + std::to_string(size - 1) +
           "'s output in the whole " + (law.name == "batch" ? "batch" : "case") +
           ", within twice the tolerance of PyTorch's answer (each result may be one from the "
           "exact "
           "answer)";
}

law_verdict broken(const case_law& law, std::size_t size, std::string reason) {
    return {false, std::move(reason), checked_line(law, size)};
}

law_verdict check_causal(const case_law& law, const std::vector<std::size_t>& shape,
                         const std::vector<double>& base, const std::vector<double>& variant,
                         const std::function<double(std::size_t)>& allowed) {
    const along axis(shape, law.output_axis, "the output " + law.output);
    const std::size_t j = first_changed_token(axis.size);
    std::size_t leak = base.size(), leak_token = axis.size;
    bool later_read = false, later_changed = false;
    for (std::size_t i = 0; i < base.size(); ++i) {
        // nan or inf: the comparison of values names it; read here, nan "does not change"
        if (!std::isfinite(base[i]) || !std::isfinite(variant[i])) continue;
        const std::size_t t = axis.position(i);
        later_read = later_read || t >= j;
        if (values_match(variant[i], base[i], allowed(i))) continue;
        if (t >= j) {
            later_changed = true;
        } else if (t < leak_token) {
            leak = i;
            leak_token = t;
        }
    }
    const std::string changed =
        "tokens " + std::to_string(j) + ".. of " + input_names(law) + " changed";
    if (leak < base.size()) {
        return broken(law, axis.size,
                      "the output of token " + std::to_string(leak_token) + " changed when " +
                          changed + " (" + law.output + index_text(leak, shape) + ": " +
                          message_number(base[leak]) + ", then " + message_number(variant[leak]) +
                          "): the future leaks in (a causal mask missing, on the wrong side of "
                          "the diagonal, or applied after softmax)");
    }
    if (later_read && !later_changed) {
        return broken(law, axis.size,
                      "the output did not change when " + changed +
                          ": it does not depend on those tokens (an answer written in, or one "
                          "computed from something other than the input)");
    }
    return {};
}

law_verdict check_order(const case_law& law, const std::vector<std::size_t>& shape,
                        const std::vector<double>& base, const std::vector<double>& variant,
                        const std::function<double(std::size_t)>& allowed) {
    const along axis(shape, law.output_axis, "the output " + law.output);
    for (std::size_t i = 0; i < base.size(); ++i) {
        const std::size_t t = axis.position(i), mirrored = axis.size - 1 - t;
        const std::size_t k = i + (mirrored * axis.inner) - (t * axis.inner);
        if (values_match(variant[k], base[i], allowed(i))) continue;
        return broken(law, axis.size,
                      "with the tokens of " + input_names(law) + " in reverse order, token " +
                          std::to_string(t) + "'s output changed (" + law.output +
                          index_text(i, shape) + ": " + message_number(base[i]) + ", then " +
                          message_number(variant[k]) + " at " + index_text(k, shape) +
                          "): a token's output depends on where it stands (a loop over a fixed "
                          "range, an index of another token), or not on the input at all (an "
                          "answer written in)");
    }
    return {};
}

law_verdict check_alone(const case_law& law, const std::vector<std::size_t>& shape,
                        const std::vector<std::size_t>& variant_shape,
                        const std::vector<double>& base, const std::vector<double>& variant,
                        const std::function<double(std::size_t)>& allowed) {
    const along axis(shape, law.output_axis, "the output " + law.output);
    const bool batch = law.name == "batch";
    const std::string last = (batch ? "sequence " : "head ") + std::to_string(axis.size - 1);
    std::vector<std::size_t> alone = shape;
    alone[law.output_axis] = 1;
    if (variant_shape != alone) {
        return broken(law, axis.size,
                      last + " ran alone and gave " + law.output + " of shape " +
                          shape_string(variant_shape) + ", not " + shape_string(alone) + ": " +
                          (batch ? "the batch size" : "the number of heads") +
                          " comes from something other than the input (a constant, or another "
                          "axis)");
    }
    for (std::size_t k = 0; k < variant.size(); ++k) {
        const std::size_t outer = k / axis.inner, inner = k % axis.inner;
        const std::size_t i = (outer * axis.size + axis.size - 1) * axis.inner + inner;
        if (values_match(variant[k], base[i], allowed(i))) continue;
        const std::string where = " (" + law.output + index_text(i, shape) + ": " +
                                  message_number(base[i]) +
                                  (batch ? " in the batch, " : " with every head, ") +
                                  message_number(variant[k]) + " alone)";
        return broken(law, axis.size,
                      last + "'s output changed when it ran alone" + where +
                          (batch ? ": sequences of the batch mix (a sum or softmax over the "
                                   "batch axis, or an index on the wrong axis)"
                                 : ": heads mix (an index on the wrong axis, e.g. t = row / T "
                                   "instead of row % T, or memory shared by the heads)"));
    }
    return {};
}

}  // namespace law_detail
}  // namespace

using law_detail::along;
using law_detail::broken;
using law_detail::checked_line;
using law_detail::input_names;
using law_detail::is_causal;
using law_detail::is_order;
using law_detail::require_known;

std::size_t first_changed_token(std::size_t tokens) { return tokens / 2; }

bool law_changes(const case_law& law, const std::string& name) {
    for (const auto& input : law.inputs) {
        if (input == name) return true;
    }
    return false;
}

float_tensor law_input(const case_law& law, const float_tensor& tensor) {
    require_known(law);
    const std::vector<std::size_t> shape(tensor.shape().begin(), tensor.shape().end());
    const along axis(shape, law.input_axis, "the input " + input_names(law));
    if (axis.size < 2) {
        throw golden_error("the law " + law.name + " needs 2 or more entries along axis " +
                           std::to_string(law.input_axis) + " of " + input_names(law) +
                           ", which has shape " + shape_string(shape) +
                           "; the test and tools/record disagree");
    }
    const float* from = tensor.data();
    if (is_causal(law)) {
        float_tensor changed = tensor;
        const std::size_t j = first_changed_token(axis.size);
        for (std::size_t o = 0; o < axis.outer; ++o) {
            for (std::size_t t = j; t < axis.size; ++t) {
                const float* source = from + (o * axis.size + (t - j)) * axis.inner;
                std::copy(source, source + axis.inner,
                          changed.data() + (o * axis.size + t) * axis.inner);
            }
        }
        return changed;
    }
    if (is_order(law)) {
        float_tensor reversed = tensor;
        for (std::size_t o = 0; o < axis.outer; ++o) {
            for (std::size_t t = 0; t < axis.size; ++t) {
                const float* source = from + (o * axis.size + (axis.size - 1 - t)) * axis.inner;
                std::copy(source, source + axis.inner,
                          reversed.data() + (o * axis.size + t) * axis.inner);
            }
        }
        return reversed;
    }
    std::vector<std::size_t> alone = shape;
    alone[law.input_axis] = 1;
    float_tensor narrowed = float_tensor::from_shape(alone);
    for (std::size_t o = 0; o < axis.outer; ++o) {
        const float* source = from + (o * axis.size + axis.size - 1) * axis.inner;
        std::copy(source, source + axis.inner, narrowed.data() + o * axis.inner);
    }
    return narrowed;
}

std::string law_output_name(const case_law& law) { return "law." + law.name + "." + law.output; }

std::string law_variant(const case_law& law, std::size_t size) {
    if (is_causal(law)) {
        return "tokens " + std::to_string(first_changed_token(size)) + ".. of " + input_names(law) +
               " changed";
    }
    if (is_order(law)) return "the tokens of " + input_names(law) + " were reversed";
    const std::string last = size > 0 ? std::to_string(size - 1) : "the last";
    return (law.name == "batch" ? "sequence " : "head ") + last + " ran alone";
}

law_verdict check_law(const case_law& law, const any_tensor& base, const any_tensor& variant,
                      const expected_golden& golden) {
    require_known(law);
    const auto shape = shape_of(base);
    if (base.index() != golden.tensor.index() || shape != shape_of(golden.tensor)) return {};
    const auto base_values = values_of(base);
    const auto allowed = law_detail::allowance_of(golden, base_values);
    const along axis(shape, law.output_axis, "the output " + law.output);
    if (variant.index() != base.index()) {
        return broken(law, axis.size,
                      "when " + law_variant(law, axis.size) + ", " + law.output + " has dtype " +
                          dtype_name(variant) + ", not " + dtype_name(base) +
                          " as in the case itself");
    }
    const auto variant_values = values_of(variant);
    if (is_causal(law) || is_order(law)) {
        if (shape_of(variant) != shape) {
            return broken(law, axis.size,
                          "when " + law_variant(law, axis.size) + ", " + law.output +
                              " has shape " + shape_string(shape_of(variant)) + ", not " +
                              shape_string(shape) +
                              " as in the case itself: the result does not follow its input");
        }
        return is_order(law)
                   ? law_detail::check_order(law, shape, base_values, variant_values, allowed)
                   : law_detail::check_causal(law, shape, base_values, variant_values, allowed);
    }
    return law_detail::check_alone(law, shape, shape_of(variant), base_values, variant_values,
                                   allowed);
}

law_verdict law_threw(const case_law& law, std::size_t size, const std::string& failure) {
    return broken(law, size, "the call threw when " + law_variant(law, size) + ": " + failure);
}

law_verdict law_without_result(const case_law& law, std::size_t size) {
    return {false,
            "not checked: the second run, where " + law_variant(law, size) + ", left no result " +
                law_output_name(law) + ".npy (a crash, a time-out or an exit?)",
            checked_line(law, size)};
}

comparison law_comparison(const law_verdict& verdict) {
    comparison compared;
    compared.passed = verdict.passed;
    compared.reason = verdict.reason;
    compared.withheld_reason = verdict.reason;
    compared.details = verdict.details;
    return compared;
}

}  // namespace attn::kit
