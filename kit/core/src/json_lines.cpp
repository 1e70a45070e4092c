// kit/core/src/json_lines.cpp — the test programs' JSON Lines, from plain structs.
#include "kit/json_lines.hpp"

#include "kit/torch_format.hpp"
#include "kit/verdict_json.hpp"

#include <nlohmann/json.hpp>

namespace attn::kit {
namespace {

bool ends_with(const std::string& text, const std::string& end) {
    return text.size() >= end.size() &&
           text.compare(text.size() - end.size(), end.size(), end) == 0;
}

nlohmann::json failure_json(const failure_record& failure) {
    const failure_facts& facts = failure.facts;
    nlohmann::json json = {{"kind", facts.kind},   {"message", failure.message},
                           {"text", failure.text}, {"alike", failure.alike},
                           {"file", failure.file}, {"line", failure.line}};
    if (facts.points_to_garbage) json["points_to_garbage"] = true;
    if (states_comparison(facts)) json["comparison"] = comparison_json(facts.compared);
    if (facts.kind == "mismatch" || facts.kind == "law") {
        json["output"] = facts.output;
        if (!facts.call.empty()) json["call"] = facts.call;
        if (!facts.description.empty()) json["description"] = facts.description;
        if (facts.matrix) json["matrix"] = attention_matrix_json(*facts.matrix);
    }
    return json;
}

}  // namespace

bool states_comparison(const failure_facts& facts) {
    return facts.kind == "mismatch" || facts.kind == "law" || facts.kind == "kernel";
}

bool names_attention_matrix(const std::string& output) {
    return output == "weights" || output == "scores" || output == "masked" ||
           output == "normalized" || ends_with(output, "_weights") || ends_with(output, "_scores");
}

std::optional<attention_matrix> attention_matrix_of(const std::string& case_set,
                                                    const std::string& output,
                                                    const any_tensor& got,
                                                    const any_tensor& expected,
                                                    const comparison& compared) {
    auto shape = shape_of(expected);
    if (case_set != "public" || !names_attention_matrix(output) || got.index() != 0 ||
        expected.index() != 0 || shape_of(got) != shape || shape.size() < 2 ||
        shape[shape.size() - 1] < 2 || shape[shape.size() - 1] != shape[shape.size() - 2]) {
        return std::nullopt;
    }
    auto expected_values = values_of(expected);
    if (expected_values.size() > attention_matrix_max_values) return std::nullopt;
    return attention_matrix{std::move(shape), values_of(got), std::move(expected_values),
                            compared.beyond};
}

std::string program_line(const std::string& program) {
    return json_line({{"event", "program"},
                      {"schema", "attn-kit/test-verdicts"},
                      {"version", verdict_schema_version},
                      {"program", program}});
}

std::string start_line(const std::string& test) {
    return json_line({{"event", "start"}, {"test", test}});
}

std::string test_line(const test_record& test) {
    nlohmann::json failures = nlohmann::json::array();
    for (const auto& failure : test.failures) failures.push_back(failure_json(failure));
    nlohmann::json event = {{"event", "test"},
                            {"test", test.test},
                            {"case", nullptr},
                            {"status", test.status},
                            {"failures", std::move(failures)},
                            {"ruled_out", test.ruled_out}};
    if (test.case_path) event["case"] = *test.case_path;
    if (!test.notes.empty()) event["notes"] = test.notes;
    if (test.because) {
        event["because"] = {{"function", test.because->function},
                            {"failed", test.because->failed},
                            {"cases", test.because->cases}};
    }
    if (test.revised) event["revised"] = true;
    return json_line(event);
}

std::string end_line(int tests, int failed, const std::vector<std::vector<std::string>>& groups) {
    return json_line({{"event", "end"}, {"tests", tests}, {"failed", failed}, {"groups", groups}});
}

std::string crash_line_start(const std::string& test) {
    return R"({"event":"crash","test":)" + json_line(test) + R"(,"signal":")";
}

std::string shown_case_line(const case_entry& entry, const std::vector<std::string>& cases) {
    return json_line({{"event", "case"},
                      {"path", entry.path},
                      {"name", entry.name()},
                      {"exercise", entry.exercise},
                      {"kind", entry.kind},
                      {"source", entry.source},
                      {"cases", cases}});
}

std::string shown_tensor_line(const std::string& role, const std::string& name,
                              const any_tensor& tensor,
                              const std::optional<attention_matrix>& matrix,
                              const comparison* compared) {
    nlohmann::json record = {{"event", "tensor"},
                             {"role", role},
                             {"name", name},
                             {"shape", shape_of(tensor)},
                             {"dtype", dtype_name(tensor)},
                             {"repr", torch_repr(tensor)},
                             {"matrix", nullptr}};
    if (matrix) record["matrix"] = attention_matrix_json(*matrix);
    if (compared != nullptr) record["comparison"] = comparison_json(*compared);
    return json_line(record);
}

std::string shown_throw_line(bool stub, const std::string& message) {
    return json_line({{"event", "threw"}, {"stub", stub}, {"message", message}});
}

std::string shown_end_line() { return json_line({{"event", "end"}}); }

std::string shown_error_line(const std::string& message) {
    return json_line({{"event", "error"}, {"message", message}});
}

}  // namespace attn::kit
