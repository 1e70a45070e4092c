// tests/kit/test_torch_format.cpp — the printer reproduces PyTorch's repr() byte for byte, for
// every print sample tools/record recorded with torch's own repr().
#include "kit/golden_store.hpp"
#include "kit/torch_format.hpp"

#include <gtest/gtest.h>

namespace {

using attn::kit::golden_store;

std::vector<std::string> sample_paths() {
    std::vector<std::string> paths;
    try {
        for (const auto* file : golden_store::instance().files("print_sample")) {
            paths.push_back(file->path);
        }
    } catch (const attn::kit::golden_error&) {
        // GoldenStoreTest reports an unreadable manifest.
    }
    return paths;
}

class TorchFormatTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TorchFormatTest, MatchesPyTorchRepr) {
    const golden_store& store = golden_store::instance();
    EXPECT_EQ(attn::kit::torch_repr(store.load(GetParam())), store.file(GetParam()).repr);
}

INSTANTIATE_TEST_SUITE_P(Samples, TorchFormatTest, ::testing::ValuesIn(sample_paths()),
                         [](const auto& info) {
                             const auto& path = info.param;
                             return path.substr(path.rfind('/') + 1,
                                                path.size() - path.rfind('/') - 5);
                         });

}  // namespace
