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

}  // namespace

nlohmann::json attention_matrix_json(const attention_matrix& matrix) {
    nlohmann::json json = {{"shape", matrix.shape}, {"expected", nlohmann::json::array()}};
    for (const double value : matrix.expected) json["expected"].push_back(short_number(value));
    if (!matrix.got.empty()) {
        json["got"] = nlohmann::json::array();
        for (const double value : matrix.got) json["got"].push_back(short_number(value));
        json["beyond"] = matrix.beyond;
    }
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
