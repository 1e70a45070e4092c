// kit/src/golden.cpp — MANIFEST.json parsing and integrity-checked .npy loading.
#include "kit/golden.hpp"

#include "attn/tensor.hpp"

#include <nlohmann/json.hpp>
#include <openssl/evp.h>
#include <xtensor/xnpy.hpp>

#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace attn::kit {
namespace {

const char* const how_to_fix =
    "restore it with `git checkout -- reference_data` or re-record it with "
    "`/usr/bin/python3 tools/record_goldens.py`";

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

std::string sha256_hex(const std::string& bytes) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
        throw golden_error("OpenSSL could not compute a sha256");
    }
    std::ostringstream hex;
    for (unsigned int i = 0; i < length; ++i) {
        hex << std::hex << std::setw(2) << std::setfill('0') << static_cast<int>(digest[i]);
    }
    return hex.str();
}

std::string with_npy_suffix(const std::string& name) {
    const std::string suffix = ".npy";
    const bool has_suffix = name.size() >= suffix.size() &&
                            name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    return has_suffix ? name : name + suffix;
}

GoldenEntry parse_entry(const std::string& path, const nlohmann::json& json) {
    GoldenEntry entry;
    entry.path = path;
    entry.exercise = json.at("exercise").get<std::string>();
    entry.role = json.at("role").get<std::string>();
    entry.source = json.at("source").get<std::string>();
    entry.sha256 = json.at("sha256").get<std::string>();
    entry.shape = json.at("shape").get<std::vector<std::size_t>>();
    entry.reduction = json.value("reduction", std::size_t{1});
    entry.mistakes = json.value("mistakes", std::vector<std::string>{});
    entry.mistake_of = json.value("of", std::string{});
    entry.mistake_name = json.value("name", std::string{});
    entry.mistake_hint = json.value("hint", std::string{});
    entry.repr = json.value("repr", std::string{});
    return entry;
}

}  // namespace

GoldenStore::GoldenStore(std::filesystem::path root) : root_(std::move(root)) {
    const auto manifest_path = root_ / "MANIFEST.json";
    if (!std::filesystem::exists(manifest_path)) {
        throw golden_error("the golden manifest " + manifest_path.string() + " is missing; " +
                           how_to_fix);
    }
    try {
        const auto manifest = nlohmann::json::parse(read_file(manifest_path));
        for (const auto& [path, json] : manifest.at("files").items()) {
            entries_.emplace(path, parse_entry(path, json));
        }
    } catch (const nlohmann::json::exception& error) {
        throw golden_error("the golden manifest " + manifest_path.string() + " is malformed (" +
                           error.what() + "); " + how_to_fix);
    }
}

const GoldenStore& GoldenStore::instance() {
    static const GoldenStore store([] {
        const char* override_root = std::getenv("ATTN_REFERENCE_DATA");
        return std::filesystem::path(override_root ? override_root : ATTN_REFERENCE_DATA_DIR);
    }());
    return store;
}

const GoldenEntry& GoldenStore::entry(const std::string& name) const {
    const auto found = entries_.find(with_npy_suffix(name));
    if (found == entries_.end()) {
        throw golden_error("no golden named " + with_npy_suffix(name) + " in " +
                           (root_ / "MANIFEST.json").string() +
                           "; is the name right, and was tools/record_goldens.py re-run?");
    }
    return found->second;
}

std::vector<const GoldenEntry*> GoldenStore::entries(const std::string& role,
                                                     const std::string& exercise) const {
    std::vector<const GoldenEntry*> selected;
    for (const auto& [path, entry] : entries_) {
        if (entry.role == role && (exercise.empty() || entry.exercise == exercise)) {
            selected.push_back(&entry);
        }
    }
    return selected;
}

xt::xarray<float> GoldenStore::load(const std::string& name) const {
    const GoldenEntry& golden = entry(name);
    const auto file = root_ / golden.path;
    if (!std::filesystem::is_regular_file(file)) {
        throw golden_error("golden file " + file.string() + " is missing; " + how_to_fix);
    }
    const std::string bytes = read_file(file);
    const std::string actual_sha = sha256_hex(bytes);
    if (actual_sha != golden.sha256) {
        throw golden_error("golden file " + file.string() +
                           " is corrupted or was edited by hand: its sha256 is " +
                           actual_sha.substr(0, 12) + "…, MANIFEST.json records " +
                           golden.sha256.substr(0, 12) + "…; " + how_to_fix);
    }
    std::istringstream stream(bytes);
    xt::xarray<float> tensor = xt::load_npy<float>(stream);
    const std::vector<std::size_t> shape(tensor.shape().begin(), tensor.shape().end());
    if (shape != golden.shape) {
        throw golden_error("golden file " + file.string() + " has shape " + shape_string(shape) +
                           ", MANIFEST.json records " + shape_string(golden.shape) + "; " +
                           how_to_fix);
    }
    return tensor;
}

std::vector<KnownMistake> GoldenStore::mistakes_of(const GoldenEntry& expected) const {
    std::vector<KnownMistake> mistakes;
    for (const auto& path : expected.mistakes) {
        const GoldenEntry& mistake = entry(path);
        mistakes.push_back({mistake.mistake_name, mistake.mistake_hint, load(path)});
    }
    return mistakes;
}

}  // namespace attn::kit
