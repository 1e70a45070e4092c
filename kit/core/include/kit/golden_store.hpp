// kit/golden_store.hpp — a case set: golden tensors recorded from PyTorch, their cases, and
// an integrity check on every load.
//
// A case set is a folder with MANIFEST.json (written by tools/record) and one folder per
// exercise and case: reference_data/03_softmax/rows_notebook/{scores,dim,weights}.npy.
// A *case* is named inputs, one call of an exercise's API (its "kind", e.g.
// "softmax_matrix") and the expected outputs. Each expected golden carries its error scale
// and reduction length (kit/tolerance.hpp) and the wrong answers the recorder recorded for
// it. Every load re-hashes the file and refuses one that differs from the manifest, so a
// golden edited by hand or a corrupted checkout fails loudly, naming the file.
#pragma once

#include "kit/any_tensor.hpp"
#include "kit/tolerance.hpp"

#include <xtensor/xtensor.hpp>

#include <cstddef>
#include <cstdint>
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

// One file of MANIFEST.json; `path` is relative to the case set's folder. Fields that do not
// apply to a file's role stay empty.
struct golden_file {
    std::string path;      // "03_softmax/rows_notebook/weights.npy"
    std::string exercise;  // "03", or "kit" for the kit's own samples
    std::string role;  // "input", "expected", "scale", "mistake", or a kit sample: "print_sample",
                       // "init_sample", "generator_sample"
    std::string source;     // the public notebook cell, e.g. "ch03.ipynb In [11]"
    std::string case_path;  // "03_softmax/rows_notebook"
    std::string sha256;
    std::string dtype;  // "float32", "int64" or "bool"
    std::vector<std::size_t> shape;
    std::size_t reduction = 1;          // expected: longest sum behind a value
    std::string scale;                  // expected: path of its error-scale tensor
    double tolerance_factor = 1.0;      // expected: 1 unless recorded with a reason
    std::string tolerance_reason;       // expected
    std::vector<std::string> mistakes;  // expected: paths of its recorded mistakes
    // expected: the names of mistakes whose code throws on this case (tools/record's
    // "throws"): any result rules them out, as a result unlike a recorded mistake rules that out
    std::vector<std::string> throws;
    std::string mistake_of;    // mistake, scale: the expected tensor it belongs to
    std::string mistake_name;  // mistake: "softmax over the wrong axis (...)"
    // mistake: its id, the recorder's slug (its file is mistakes/<output>.<id>.npy: "wrong_axis"),
    // and its family, the slip it is a variant of ("first_unfilled" for a first row or column
    // left unfilled): display text may change, ids do not (docs/verdicts.md).
    std::string mistake_id;
    std::string mistake_family;
    std::string mistake_hint;  // mistake: one line on how to fix it
    // mistake: another recorded mistake, of another name, gives the same tensor on this case
    // (tools/record's "ambiguous"): a result equal to it is not named here; another case of the
    // exercise, where they differ, names it.
    bool mistake_ambiguous = false;
    std::string repr;         // print_sample: PyTorch's repr() of the tensor
    int print_precision = 4;  // print_sample: torch.set_printoptions(precision=...) of repr
    // generator_sample: the attn::TorchGenerator calls that must rebuild the tensor, as
    // MANIFEST.json's JSON object (tools/recorder/generator.py says what it holds).
    std::string generator_calls;
    // init_sample: the attn::hashed_uniform call that must rebuild the tensor.
    std::uint64_t init_seed = 0;
    std::string init_name;
    float init_low = 0.0f, init_high = 0.0f;
};

// A law a case's output must obey whatever its values (kit/laws.hpp), from MANIFEST.json's
// "laws" of the case: checked by running the case again on its inputs changed (a variant).
struct case_law {
    std::string name;                 // "causal", "order", "batch" or "heads"
    std::vector<std::string> inputs;  // the inputs the variant changes: {"x"}
    std::size_t input_axis = 0;       // their token axis (causal), or batch or head axis
    std::string output;               // the output the law is about: "context"
    std::size_t output_axis = 0;      // its token, batch or head axis
};

// One case: `path` is "<exercise folder>/<case name>", e.g. "01_dot_scores/notebook_journey".
struct case_entry {
    std::string path;
    std::string exercise;  // "01"
    std::string kind;      // the API call it exercises, e.g. "dot_scores"
    std::string source;
    std::vector<std::string> inputs;    // names, in call order: {"inputs", "query"}
    std::vector<std::string> expected;  // output names: {"scores"}
    std::vector<case_law> laws = {};    // laws its outputs obey (kit/laws.hpp); often none

    std::string name() const { return path.substr(path.rfind('/') + 1); }
    std::string file(const std::string& stem) const { return path + "/" + stem + ".npy"; }
};

// A recorded wrong answer, loaded: a failing result equal to it is named.
struct known_mistake {
    std::string name;
    std::string hint;
    any_tensor tensor;
    bool ambiguous = false;   // golden_file::mistake_ambiguous: never named
    std::string id = {};      // golden_file::mistake_id
    std::string family = {};  // golden_file::mistake_family
};

// Everything a comparison with one expected golden needs.
struct expected_golden {
    std::string path;
    std::string source;
    any_tensor tensor;
    float_tensor scale;  // float32 goldens only: the error magnitude of each value
    attn::kit::tolerance tolerance;
    std::vector<known_mistake> mistakes;
    std::vector<std::string> throws = {};  // golden_file::throws
};

// The kit's reference_data/: $ATTN_REFERENCE_DATA if set (the grader points it at a pristine
// copy), else the folder this build was configured with.
std::filesystem::path reference_data_folder();

class golden_store {
public:
    static constexpr int format_version = 2;  // of MANIFEST.json, written by tools/record
    // How to repair a broken golden file: every golden_error about one ends with it.
    static constexpr const char* how_to_fix =
        "restore it with `git checkout -- reference_data` or re-record it with "
        "`/usr/bin/python3 tools/record`";

    // Reads root/MANIFEST.json. Throws golden_error if it is missing, malformed, of another
    // format version, or recorded under another tolerance rule.
    explicit golden_store(std::filesystem::path root);

    // The case set in reference_data_folder(), read once.
    static const golden_store& instance();

    const std::filesystem::path& root() const { return root_; }
    const std::string& case_set() const { return case_set_; }  // "public", "hidden", ...

    // `name` with or without ".npy". Throws golden_error if the manifest has no such file.
    const golden_file& file(const std::string& name) const;

    // Every file with this role (and, if not empty, of this exercise), in path order.
    std::vector<const golden_file*> files(const std::string& role,
                                          const std::string& exercise = "") const;

    // The case at "03_softmax/rows_notebook". Throws golden_error if there is none.
    const case_entry& find_case(const std::string& path) const;

    // Every case (of this exercise, if not empty), in path order.
    std::vector<const case_entry*> cases(const std::string& exercise = "") const;

    // The tensor, after checking that the file exists, hashes to the manifest's sha256 and
    // has the manifest's dtype and shape. Throws golden_error naming the file otherwise.
    any_tensor load(const std::string& name) const;

    // load() as a tensor of known value type and rank: load_as<float, 2>("...inputs").
    template <class T, std::size_t N>
    xt::xtensor<T, N> load_as(const std::string& name) const;

    // An expected golden with its scale, tolerance and recorded mistakes.
    expected_golden expected(const std::string& name) const;

private:
    void require_type(const std::string& name, const any_tensor& tensor, const std::string& dtype,
                      std::size_t rank) const;

    std::filesystem::path root_;
    std::string case_set_;
    std::map<std::string, golden_file> files_;
    std::map<std::string, case_entry> cases_;
};

// How MANIFEST.json names a C++ value type.
template <class T>
const char* dtype_of() {
    if constexpr (std::is_same_v<T, float>) return "float32";
    if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
    if constexpr (std::is_same_v<T, bool>) return "bool";
}

template <class T, std::size_t N>
xt::xtensor<T, N> golden_store::load_as(const std::string& name) const {
    any_tensor tensor = load(name);
    require_type(name, tensor, dtype_of<T>(), N);
    return std::get<xt::xarray<T>>(tensor);
}

// Compiled once, in golden_files.cpp, for the inputs the exercises take (see to_any_tensor).
extern template xt::xtensor<float, 1> golden_store::load_as<float, 1>(const std::string&) const;
extern template xt::xtensor<float, 2> golden_store::load_as<float, 2>(const std::string&) const;
extern template xt::xtensor<float, 3> golden_store::load_as<float, 3>(const std::string&) const;
extern template xt::xtensor<float, 4> golden_store::load_as<float, 4>(const std::string&) const;
extern template xt::xtensor<std::int64_t, 0> golden_store::load_as<std::int64_t, 0>(
    const std::string&) const;

}  // namespace attn::kit
