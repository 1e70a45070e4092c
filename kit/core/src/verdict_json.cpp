// kit/core/src/verdict_json.cpp — a comparison as JSON.
#include "kit/verdict_json.hpp"

#include <cmath>

namespace attn::kit {
namespace {

nlohmann::json json_number(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
    return value;
}

}  // namespace

nlohmann::json comparison_json(const comparison& compared) {
    nlohmann::json json = {
        {"passed", compared.passed},       {"reason", compared.reason},
        {"mistake", compared.mistake},     {"hint", compared.hint},
        {"diagnosis", compared.diagnosis}, {"ruled_out", compared.ruled_out},
        {"details", compared.details},
    };
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
