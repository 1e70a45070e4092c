// kit/golden.hpp — golden tensors recorded from PyTorch, loaded with an integrity check.
//
// reference_data/ holds the .npy files tools/record_goldens.py wrote and MANIFEST.json, which
// records each file's sha256, shape, role and source cell. Every load re-hashes the file and
// refuses one that differs from the manifest, so a golden edited by hand (or a corrupted
// checkout) fails loudly with a message naming the file, instead of grading against it.
#pragma once

#include <xtensor/xarray.hpp>
#include <xtensor/xtensor.hpp>

#include <cstddef>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace attn::kit {

// A missing, corrupted or unknown golden file, or an unreadable manifest.
class golden_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// One file of MANIFEST.json. `path` is relative to reference_data/, e.g.
// "03_softmax/attn_weights.npy"; fields that do not apply to a role stay empty.
struct GoldenEntry {
    std::string path;
    std::string exercise;  // "03", or "kit" for the kit's own samples
    std::string role;      // "input", "expected", "mistake" or "print_sample"
    std::string source;    // seed document and cell, e.g. "001 §3.3.2, In [9]"
    std::string sha256;
    std::vector<std::size_t> shape;
    std::size_t reduction = 1;          // expected: longest sum behind a value
    std::vector<std::string> mistakes;  // expected: paths of its recorded mistakes
    std::string mistake_of;             // mistake: path of the expected tensor it imitates
    std::string mistake_name;           // mistake: e.g. "softmax over the wrong axis ..."
    std::string mistake_hint;           // mistake: one line on how to fix it
    std::string repr;                   // print_sample: PyTorch's repr() of the tensor
};

// A recorded wrong answer, loaded: what a test compares a failing result against.
struct KnownMistake {
    std::string name;
    std::string hint;
    xt::xarray<float> tensor;
};

class GoldenStore {
public:
    // Reads root/MANIFEST.json. Throws golden_error if it is missing or malformed.
    explicit GoldenStore(std::filesystem::path root);

    // The kit's reference_data/: $ATTN_REFERENCE_DATA if set (the grader points it at a
    // pristine copy), else the folder this build was configured with.
    static const GoldenStore& instance();

    const std::filesystem::path& root() const { return root_; }

    // `name` with or without ".npy": "03_softmax/attn_weights". Throws golden_error if the
    // manifest has no such file.
    const GoldenEntry& entry(const std::string& name) const;

    // Every entry with this role (and, if not empty, of this exercise), in path order.
    std::vector<const GoldenEntry*> entries(const std::string& role,
                                            const std::string& exercise = "") const;

    // The tensor, after checking that the file exists, hashes to the manifest's sha256 and
    // has the manifest's shape. Throws golden_error naming the file otherwise.
    xt::xarray<float> load(const std::string& name) const;

    // The recorded mistakes of an "expected" golden, loaded.
    std::vector<KnownMistake> mistakes_of(const GoldenEntry& expected) const;

private:
    std::filesystem::path root_;
    std::map<std::string, GoldenEntry> entries_;
};

// A golden of known rank from the kit's store: golden<2>("05_all_context_vectors/inputs").
template <std::size_t N>
xt::xtensor<float, N> golden(const std::string& name) {
    xt::xarray<float> tensor = GoldenStore::instance().load(name);
    if (tensor.dimension() != N) {
        throw golden_error("golden " + name + " has " + std::to_string(tensor.dimension()) +
                           " dimensions, but the test reads it as a rank-" + std::to_string(N) +
                           " tensor");
    }
    return tensor;
}

}  // namespace attn::kit
