// kit/core/src/torch_format.cpp — a port of torch/_tensor_str.py (PyTorch 1.13) for float32,
// int64 and bool tensors.
#include "kit/torch_format.hpp"

#include "attn/tensor.hpp"

#include <xtensor/xadapt.hpp>
#include <xtensor/xview.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

namespace attn::kit {
namespace {

constexpr std::size_t threshold = 1000;
constexpr std::size_t edgeitems = 3;
constexpr std::size_t linewidth = 80;

// Python's '{:.Nf}' / '{:.Ne}' of a float: printf's, except that nan and inf carry no sign
// bit noise ("nan", "inf", "-inf").
std::string python_format(double value, char conversion, int digits, int width = 0) {
    std::string text;
    if (std::isnan(value)) {
        text = "nan";
    } else if (std::isinf(value)) {
        text = value < 0 ? "-inf" : "inf";
    } else {
        char buffer[64];
        const char format[] = {'%', '.', '*', conversion, '\0'};
        std::snprintf(buffer, sizeof buffer, format, digits, value);
        text = buffer;
    }
    return std::string(std::max<int>(0, width - static_cast<int>(text.size())), ' ') + text;
}

using values = xt::xarray<long double>;  // every dtype's values, exactly (int64 included)

enum class value_kind { floating, integer, boolean };

// torch's _Formatter: one number format and width for the whole (summarised) tensor.
class formatter {
public:
    formatter(const std::vector<long double>& values, value_kind kind, int precision)
        : kind_(kind), precision_(precision) {
        if (kind_ != value_kind::floating) {
            for (long double v : values) width_ = std::max(width_, plain(v).size());
            return;
        }
        std::vector<double> nonzero_finite;
        for (double v : values) {
            if (std::isfinite(v) && v != 0.0) nonzero_finite.push_back(v);
        }
        if (nonzero_finite.empty()) return;
        double min_abs = std::abs(nonzero_finite.front()), max_abs = min_abs;
        for (double v : nonzero_finite) {
            min_abs = std::min(min_abs, std::abs(v));
            max_abs = std::max(max_abs, std::abs(v));
            if (v != std::ceil(v)) int_mode_ = false;
        }
        const bool wide_range = max_abs / min_abs > 1000.0 || max_abs > 1.0e8;
        sci_mode_ = int_mode_ ? wide_range : wide_range || min_abs < 1.0e-4;
        for (double v : nonzero_finite) {
            const std::size_t length = sci_mode_   ? python_format(v, 'e', precision_).size()
                                       : int_mode_ ? python_format(v, 'f', 0).size() + 1  // the "."
                                                   : python_format(v, 'f', precision_).size();
            width_ = std::max(width_, length);
        }
    }

    std::size_t width() const { return width_; }

    std::string format(long double value) const {
        std::string text;
        if (kind_ != value_kind::floating) {
            text = plain(value);
        } else if (sci_mode_) {
            text = python_format(value, 'e', precision_, static_cast<int>(width_));
        } else if (int_mode_) {
            text = python_format(value, 'f', 0) + (std::isfinite(value) ? "." : "");
        } else {
            text = python_format(value, 'f', precision_);
        }
        return std::string(width_ > text.size() ? width_ - text.size() : 0, ' ') + text;
    }

private:
    // Python's str() of an int64 or a bool.
    std::string plain(long double value) const {
        if (kind_ == value_kind::boolean) return value != 0.0 ? "True" : "False";
        return std::to_string(static_cast<long long>(value));
    }

    value_kind kind_;
    int precision_;  // torch.set_printoptions(precision=...): 4 by default
    bool int_mode_ = true;
    bool sci_mode_ = false;
    std::size_t width_ = 1;
};

// The indices of the first dimension that are printed: all, or edgeitems from each end.
std::vector<std::size_t> shown_rows(std::size_t size, bool summarize) {
    std::vector<std::size_t> rows;
    const bool cut = summarize && size > 2 * edgeitems;
    for (std::size_t i = 0; i < size; ++i) {
        if (!cut || i < edgeitems || i >= size - edgeitems) rows.push_back(i);
    }
    return rows;
}

// get_summarized_data: the values the formatter sees when the tensor is summarised.
void collect_values(const values& t, bool summarize, std::vector<long double>& out) {
    if (t.dimension() == 0) {
        out.push_back(t());
        return;
    }
    for (std::size_t i : shown_rows(t.shape(0), summarize)) {
        collect_values(values(xt::view(t, i)), summarize, out);
    }
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? separator : "") + parts[i];
    return out;
}

// _vector_str: a 1-D tensor, wrapped at linewidth.
std::string vector_str(const values& t, std::size_t indent, bool summarize,
                       const formatter& format) {
    const std::size_t element_length = format.width() + 2;
    const std::size_t per_line =
        std::max<std::size_t>(1, (linewidth - std::min(indent, linewidth)) / element_length);
    std::vector<std::string> data;
    const auto rows = shown_rows(t.shape(0), summarize);
    for (std::size_t k = 0; k < rows.size(); ++k) {
        if (k > 0 && rows[k] != rows[k - 1] + 1) data.push_back(" ...");
        data.push_back(format.format(t(rows[k])));
    }
    std::vector<std::string> lines;
    for (std::size_t i = 0; i < data.size(); i += per_line) {
        const auto end = data.begin() + static_cast<long>(std::min(data.size(), i + per_line));
        lines.push_back(
            join(std::vector<std::string>(data.begin() + static_cast<long>(i), end), ", "));
    }
    return "[" + join(lines, ",\n" + std::string(indent + 1, ' ')) + "]";
}

// _tensor_str_with_formatter: nested brackets, blank lines between blocks of rank >= 3.
std::string tensor_str(const values& t, std::size_t indent, bool summarize,
                       const formatter& format) {
    if (t.dimension() == 0) return format.format(t());
    if (t.dimension() == 1) return vector_str(t, indent, summarize, format);
    std::vector<std::string> slices;
    const auto rows = shown_rows(t.shape(0), summarize);
    for (std::size_t k = 0; k < rows.size(); ++k) {
        if (k > 0 && rows[k] != rows[k - 1] + 1) slices.push_back("...");
        slices.push_back(tensor_str(values(xt::view(t, rows[k])), indent + 1, summarize, format));
    }
    const std::string separator =
        "," + std::string(t.dimension() - 1, '\n') + std::string(indent + 1, ' ');
    return "[" + join(slices, separator) + "]";
}

}  // namespace

std::string torch_repr(const any_tensor& tensor, int precision) {
    const std::string prefix = "tensor(";
    const auto shape = shape_of(tensor);
    const values all = tensor.index() == 1 ? values(xt::cast<long double>(std::get<1>(tensor)))
                                           : values(xt::adapt(values_of(tensor), shape));
    // _str_intern: an empty tensor states its size, but for shape (0,); int64 and bool,
    // like float32, are default dtypes that repr() does not name.
    const std::string size = shape.size() == 1 ? "" : ", size=" + shape_string(shape);
    if (all.size() == 0) return prefix + "[]" + size + ")";
    const bool summarize = all.size() > threshold;
    std::vector<long double> shown;
    collect_values(all, summarize, shown);
    const value_kind kind = tensor.index() == 0   ? value_kind::floating
                            : tensor.index() == 1 ? value_kind::integer
                                                  : value_kind::boolean;
    return prefix + tensor_str(all, prefix.size(), summarize, formatter(shown, kind, precision)) +
           ")";
}

std::string message_number(double value, int digits) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
    return buffer;
}

std::string exact_integer(double value) {
    if (!std::isfinite(value)) return message_number(value);
    const long long whole = static_cast<long long>(value);
    const std::string digits = std::to_string(whole < 0 ? -(whole + 1) + 1ULL : whole + 0ULL);
    std::string text;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) text += ',';
        text += digits[i];
    }
    return (whole < 0 ? "-" : "") + text;
}

std::string integer_difference(double got, double expected) {
    const double by = std::abs(got - expected);
    std::string text = exact_integer(by) + (got < expected ? " fewer" : " more") + " than expected";
    if (expected != 0 && got / expected > 0) {
        // Three digits, or as many as it takes not to read "×1" for counts that differ.
        std::string factor = message_number(got / expected, 3);
        for (int digits = 4; factor == "1" && digits <= 12; ++digits)
            factor = message_number(got / expected, digits);
        text += ", ×" + factor;
    }
    return text;
}

std::string index_text(std::size_t flat, const std::vector<std::size_t>& shape) {
    std::string text;
    std::size_t stride = 1;
    for (std::size_t d = shape.size(); d-- > 0;) {
        text = std::to_string(flat / stride % shape[d]) + (text.empty() ? "" : ", ") + text;
        stride *= shape[d];
    }
    return "[" + text + "]";
}

}  // namespace attn::kit
