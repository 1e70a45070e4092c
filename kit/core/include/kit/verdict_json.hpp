// kit/verdict_json.hpp — a comparison as JSON, the same in every verdict the kit writes.
//
// The judge's verdict file (attn_judge) and the test programs' verdict stream
// (--attn-verdicts, kit/verdicts.hpp) describe an output's comparison with this one object;
// docs/verdicts.md documents both, under verdict_schema_version.
#pragma once

#include "kit/compare.hpp"
#include "kit/json_lines.hpp"

#include <nlohmann/json.hpp>

namespace attn::kit {

// Raised whenever a field changes meaning or goes away (adding one does not).
constexpr int verdict_schema_version = 1;

// {"passed", "reason", "mistake", "hint", "details", "shape": {"got", "expected"},
//  "dtype": {...}, "differing", "worst": {"index", "got", "expected", "times_tolerance"}}:
// the last four only where known (`worst` on a value mismatch). A value that is not finite is
// written as the string "nan", "inf" or "-inf" (JSON has no such numbers).
nlohmann::json comparison_json(const comparison& compared);

// An attention matrix (kit/json_lines.hpp) as {"shape": [..., T, T], "expected": [...],
// "got": [...], "beyond": [...]}: values with the 7 significant digits a picture needs
// (not finite: "nan", "inf", "-inf"); "got" and "beyond" only where the matrix has them.
nlohmann::json attention_matrix_json(const attention_matrix& matrix);

// JSON text on one line, with text that is not UTF-8 replaced rather than thrown on.
std::string json_line(const nlohmann::json& json);

}  // namespace attn::kit
