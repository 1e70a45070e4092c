// kit/verdict_json.hpp — a comparison as JSON, the same in every verdict the kit writes.
//
// The judge's verdict file (attn_judge) and the test programs' verdict stream
// (--attn-verdicts, kit/verdicts.hpp) describe an output's comparison with this one object;
// docs/verdicts.md documents both, under verdict_schema_version.
#pragma once

#include "kit/compare.hpp"

#include <nlohmann/json.hpp>

namespace attn::kit {

// Raised whenever a field changes meaning or goes away (adding one does not).
constexpr int verdict_schema_version = 1;

// {"passed", "reason", "mistake", "hint", "details", "shape": {"got", "expected"},
//  "dtype": {...}, "differing", "worst": {"index", "got", "expected", "times_tolerance"}}:
// the last four only where known (`worst` on a value mismatch). A value that is not finite is
// written as the string "nan", "inf" or "-inf" (JSON has no such numbers).
nlohmann::json comparison_json(const comparison& compared);

// An attention matrix that differs from its golden, for a picture of both (tools/kit check):
// {"shape": [..., T, T], "got": [...], "expected": [...], "beyond": [...]}, the values in
// row-major order (7 significant digits; not finite: "nan", "inf", "-inf") and the flat
// indices of those beyond the tolerance. Null unless the case set is "public" (it states
// every expected value: never for a hidden set; the judge never writes it), `output` names a
// matrix of weights or scores (names_attention_matrix), both tensors are float32 of the same
// shape (..., T, T) with T >= 2, and they hold at most attention_matrix_max_values values.
bool names_attention_matrix(const std::string& output);
constexpr std::size_t attention_matrix_max_values = 4096;
nlohmann::json attention_matrix_json(const std::string& case_set, const std::string& output,
                                     const any_tensor& got, const any_tensor& expected,
                                     const comparison& compared);

// JSON text on one line, with text that is not UTF-8 replaced rather than thrown on.
std::string json_line(const nlohmann::json& json);

}  // namespace attn::kit
