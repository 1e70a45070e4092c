// kit/core/src/golden_files.cpp — a golden file loaded, checked against the manifest.
//
// Apart from golden_store.cpp, which reads the manifest: that unit is optimised even in Debug
// (kit_core_json.cpp), and these xtensor instantiations would only make it slower to compile.
#include "attn/tensor.hpp"
#include "kit/golden_store.hpp"
#include "kit/npy.hpp"

#include <openssl/evp.h>

#include <iomanip>
#include <sstream>

namespace attn::kit {
namespace {

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

}  // namespace

any_tensor golden_store::load(const std::string& name) const {
    const golden_file& golden = file(name);
    const auto path = root_ / golden.path;
    if (!std::filesystem::is_regular_file(path)) {
        throw golden_error("golden file " + path.string() + " is missing; " + how_to_fix);
    }
    std::string bytes;
    try {
        bytes = read_file_bytes(path);
    } catch (const npy_error& error) {
        throw golden_error(std::string(error.what()) + "; " + how_to_fix);
    }
    const std::string actual_sha = sha256_hex(bytes);
    if (actual_sha != golden.sha256) {
        throw golden_error("golden file " + path.string() +
                           " is corrupted or was edited by hand: its sha256 is " +
                           actual_sha.substr(0, 12) + "…, MANIFEST.json records " +
                           golden.sha256.substr(0, 12) + "…; " + how_to_fix);
    }
    any_tensor tensor;
    try {
        tensor = parse_npy(bytes, "golden file " + path.string());
    } catch (const npy_error& error) {
        throw golden_error(std::string(error.what()) + "; " + how_to_fix);
    }
    if (dtype_name(tensor) != golden.dtype || shape_of(tensor) != golden.shape) {
        throw golden_error("golden file " + path.string() + " holds " + dtype_name(tensor) + " " +
                           shape_string(shape_of(tensor)) + ", MANIFEST.json records " +
                           golden.dtype + " " + shape_string(golden.shape) + "; " + how_to_fix);
    }
    return tensor;
}

expected_golden golden_store::expected(const std::string& name) const {
    const golden_file& golden = file(name);
    if (golden.role != "expected") {
        throw golden_error(golden.path + " is a golden of role " + golden.role +
                           ", not an expected result");
    }
    expected_golden result{golden.path,
                           golden.source,
                           load(golden.path),
                           {},
                           tolerance::for_reduction(golden.reduction, golden.tolerance_factor,
                                                    golden.tolerance_reason),
                           {}};
    if (!golden.scale.empty()) {
        any_tensor scale = load(golden.scale);
        if (dtype_name(scale) != "float32" || shape_of(scale) != golden.shape) {
            throw golden_error("the error scale " + golden.scale + " does not fit " + golden.path +
                               "; " + how_to_fix);
        }
        result.scale = std::get<float_tensor>(std::move(scale));
    } else if (golden.dtype == "float32") {
        throw golden_error("MANIFEST.json records no error scale for " + golden.path + "; " +
                           how_to_fix);
    }
    result.throws = golden.throws;
    for (const auto& path : golden.mistakes) {
        const golden_file& mistake = file(path);
        result.mistakes.push_back({mistake.mistake_name, mistake.mistake_hint, load(path),
                                   mistake.mistake_ambiguous, mistake.mistake_id,
                                   mistake.mistake_family});
    }
    return result;
}

template xt::xtensor<float, 1> golden_store::load_as<float, 1>(const std::string&) const;
template xt::xtensor<float, 2> golden_store::load_as<float, 2>(const std::string&) const;
template xt::xtensor<float, 3> golden_store::load_as<float, 3>(const std::string&) const;
template xt::xtensor<float, 4> golden_store::load_as<float, 4>(const std::string&) const;
template xt::xtensor<std::int64_t, 0> golden_store::load_as<std::int64_t, 0>(
    const std::string&) const;

}  // namespace attn::kit
