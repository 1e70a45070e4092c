// kit/core/src/verdict_json.cpp — a comparison as JSON.
#include "kit/verdict_json.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace attn::kit {
namespace {

nlohmann::json json_number(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
    return value;
}

// A float32 value as JSON with the digits a picture needs (7 significant), not 17.
nlohmann::json short_number(double value) {
    if (!std::isfinite(value)) return json_number(value);
    std::array<char, 32> text{};
    std::snprintf(text.data(), text.size(), "%.7g", value);
    return std::strtod(text.data(), nullptr);
}

bool ends_with(const std::string& text, const std::string& end) {
    return text.size() >= end.size() &&
           text.compare(text.size() - end.size(), end.size(), end) == 0;
}

}  // namespace

bool names_attention_matrix(const std::string& output) {
    // The outputs of tests/test_*.cpp that hold attention weights or scores: "weights",
    // "scores", "masked" (scores or weights with the future masked), "normalized" (masked
    // weights renormalised), and names ending so ("attn_weights", "causal_scores").
    return output == "weights" || output == "scores" || output == "masked" ||
           output == "normalized" || ends_with(output, "_weights") || ends_with(output, "_scores");
}

nlohmann::json attention_matrix_json(const std::string& case_set, const std::string& output,
                                     const any_tensor& got, const any_tensor& expected,
                                     const comparison& compared) {
    const auto shape = shape_of(expected);
    if (case_set != "public" || !names_attention_matrix(output) || got.index() != 0 ||
        expected.index() != 0 || shape_of(got) != shape || shape.size() < 2 ||
        shape[shape.size() - 1] < 2 || shape[shape.size() - 1] != shape[shape.size() - 2]) {
        return nullptr;
    }
    const auto got_values = values_of(got), expected_values = values_of(expected);
    if (expected_values.size() > attention_matrix_max_values) return nullptr;
    nlohmann::json json = {{"shape", shape},
                           {"got", nlohmann::json::array()},
                           {"expected", nlohmann::json::array()},
                           {"beyond", compared.beyond}};
    for (const double value : got_values) json["got"].push_back(short_number(value));
    for (const double value : expected_values) json["expected"].push_back(short_number(value));
    return json;
}

nlohmann::json comparison_json(const comparison& compared) {
    nlohmann::json json = {
        {"passed", compared.passed},       {"reason", compared.reason},
        {"mistake", compared.mistake},     {"hint", compared.hint},
        {"diagnosis", compared.diagnosis}, {"ruled_out", compared.ruled_out},
        {"details", compared.details},
    };
    if (!compared.mistake_id.empty()) {
        json["mistake_id"] = compared.mistake_id;
        json["family"] = compared.mistake_family;
    }
    if (!compared.same_slip_as.empty())
        json["same_slip_as"] = {{"case", compared.same_slip_as}, {"mistake", compared.same_slip}};
    if (!compared.diagnosis_id.empty()) json["diagnosis_id"] = compared.diagnosis_id;
    if (!compared.taken_back.empty()) json["taken_back"] = compared.taken_back;
    if (!compared.got_dtype.empty()) {
        json["shape"] = {{"got", compared.got_shape}};
        json["dtype"] = {{"got", compared.got_dtype}};
        if (!compared.expected_dtype.empty()) {  // withheld for a hidden case
            json["shape"]["expected"] = compared.expected_shape;
            json["dtype"]["expected"] = compared.expected_dtype;
        }
    }
    if (compared.differing != 0) json["differing"] = compared.differing;
    for (const auto& worst : compared.worst) {
        json["worst"] = {{"index", worst.index},
                         {"got", json_number(worst.got)},
                         {"times_tolerance", json_number(worst.times_tolerance)}};
        if (!compared.expected_dtype.empty())
            json["worst"]["expected"] = json_number(worst.expected);
    }
    return json;
}

std::string json_line(const nlohmann::json& json) {
    return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace attn::kit
