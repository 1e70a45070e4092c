// kit/core/src/golden_store.cpp — MANIFEST.json read into the store (its files and cases).
#include "kit/golden_store.hpp"

#include "attn/tensor.hpp"

#include <nlohmann/json.hpp>

#include <fstream>

namespace attn::kit {
namespace {

std::string with_npy_suffix(const std::string& name) {
    const std::string suffix = ".npy";
    const bool has_suffix = name.size() >= suffix.size() &&
                            name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    return has_suffix ? name : name + suffix;
}

golden_file parse_file(const std::string& path, const nlohmann::json& json) {
    golden_file file;
    file.path = path;
    file.exercise = json.at("exercise").get<std::string>();
    file.role = json.at("role").get<std::string>();
    file.source = json.at("source").get<std::string>();
    file.sha256 = json.at("sha256").get<std::string>();
    file.dtype = json.at("dtype").get<std::string>();
    file.shape = json.at("shape").get<std::vector<std::size_t>>();
    file.case_path = json.value("case", std::string{});
    file.reduction = json.value("reduction", std::size_t{1});
    file.scale = json.value("scale", std::string{});
    file.tolerance_factor = json.value("tolerance_factor", 1.0);
    file.tolerance_reason = json.value("tolerance_reason", std::string{});
    file.mistakes = json.value("mistakes", std::vector<std::string>{});
    file.throws = json.value("throws", std::vector<std::string>{});
    file.mistake_of = json.value("of", std::string{});
    file.mistake_name = json.value("name", std::string{});
    file.mistake_hint = json.value("hint", std::string{});
    if (file.role == "mistake") {
        // mistakes/<output>.<id>.npy
        const std::string stem = std::filesystem::path(file.path).stem().string();
        file.mistake_id = stem.substr(stem.find('.') + 1);
        file.mistake_family = json.value("family", file.mistake_id);
    }
    file.mistake_ambiguous = json.value("ambiguous", false);
    file.repr = json.value("repr", std::string{});
    file.print_precision = json.value("precision", 4);
    if (json.contains("generator")) file.generator_calls = json.at("generator").dump();
    if (json.contains("init")) {
        const nlohmann::json& init = json.at("init");
        file.init_seed = std::stoull(init.at("seed").get<std::string>());
        file.init_name = init.at("name").get<std::string>();
        file.init_low = init.at("low").get<float>();
        file.init_high = init.at("high").get<float>();
    }
    return file;
}

case_entry parse_case(const std::string& path, const nlohmann::json& json) {
    case_entry entry{path,
                     json.at("exercise").get<std::string>(),
                     json.at("kind").get<std::string>(),
                     json.at("source").get<std::string>(),
                     json.at("inputs").get<std::vector<std::string>>(),
                     json.at("expected").get<std::vector<std::string>>()};
    for (const nlohmann::json& law : json.value("laws", nlohmann::json::array())) {
        entry.laws.push_back(
            {law.at("law").get<std::string>(), law.at("inputs").get<std::vector<std::string>>(),
             law.at("input_axis").get<std::size_t>(), law.at("output").get<std::string>(),
             law.at("output_axis").get<std::size_t>()});
    }
    return entry;
}

void require_current_format(const nlohmann::json& manifest, const std::string& where) {
    const int version = manifest.value("format_version", 1);
    if (version != golden_store::format_version) {
        throw golden_error(where + " has format version " + std::to_string(version) +
                           ", this kit reads version " +
                           std::to_string(golden_store::format_version) +
                           "; re-record it with `/usr/bin/python3 tools/record`");
    }
    const auto& rule = manifest.at("tolerance");
    if (rule.at("atol").get<double>() != tolerance::base_atol ||
        rule.at("rtol").get<double>() != tolerance::base_rtol) {
        throw golden_error(where +
                           " was recorded under another tolerance rule than "
                           "kit/tolerance.hpp's; re-record it with tools/record");
    }
}

}  // namespace

golden_store::golden_store(std::filesystem::path root) : root_(std::move(root)) {
    const auto manifest_path = root_ / "MANIFEST.json";
    if (!std::filesystem::exists(manifest_path)) {
        throw golden_error("the golden manifest " + manifest_path.string() + " is missing; " +
                           how_to_fix);
    }
    nlohmann::json manifest;
    try {
        std::ifstream in(manifest_path);
        manifest = nlohmann::json::parse(in);
        case_set_ = manifest.value("case_set", std::string{});
        for (const auto& [path, json] : manifest.at("files").items()) {
            files_.emplace(path, parse_file(path, json));
        }
        for (const auto& [path, json] : manifest.at("cases").items()) {
            cases_.emplace(path, parse_case(path, json));
        }
    } catch (const nlohmann::json::exception& error) {
        throw golden_error("the golden manifest " + manifest_path.string() + " is malformed (" +
                           error.what() + "); " + how_to_fix);
    }
    require_current_format(manifest, "the golden manifest " + manifest_path.string());
}

const golden_store& golden_store::instance() {
    static const golden_store store(reference_data_folder());
    return store;
}

const golden_file& golden_store::file(const std::string& name) const {
    const auto found = files_.find(with_npy_suffix(name));
    if (found == files_.end()) {
        throw golden_error("no golden named " + with_npy_suffix(name) + " in " +
                           (root_ / "MANIFEST.json").string() +
                           "; is the name right, and was tools/record re-run?");
    }
    return found->second;
}

std::vector<const golden_file*> golden_store::files(const std::string& role,
                                                    const std::string& exercise) const {
    std::vector<const golden_file*> selected;
    for (const auto& [path, file] : files_) {
        if (file.role == role && (exercise.empty() || file.exercise == exercise)) {
            selected.push_back(&file);
        }
    }
    return selected;
}

const case_entry& golden_store::find_case(const std::string& path) const {
    const auto found = cases_.find(path);
    if (found == cases_.end()) {
        throw golden_error("no case named " + path + " in " + (root_ / "MANIFEST.json").string());
    }
    return found->second;
}

std::vector<const case_entry*> golden_store::cases(const std::string& exercise) const {
    std::vector<const case_entry*> selected;
    for (const auto& [path, entry] : cases_) {
        if (exercise.empty() || entry.exercise == exercise) selected.push_back(&entry);
    }
    return selected;
}

void golden_store::require_type(const std::string& name, const any_tensor& tensor,
                                const std::string& dtype, std::size_t rank) const {
    const auto shape = shape_of(tensor);
    if (dtype_name(tensor) != dtype || shape.size() != rank) {
        throw golden_error("golden " + with_npy_suffix(name) + " is " + dtype_name(tensor) +
                           " of shape " + shape_string(shape) + ", but the test reads it as a " +
                           dtype + " tensor of rank " + std::to_string(rank));
    }
}

}  // namespace attn::kit
