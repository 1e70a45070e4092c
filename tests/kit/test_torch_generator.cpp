// tests/kit/test_torch_generator.cpp — attn::TorchGenerator draws PyTorch's numbers, bit for
// bit: every sample tools/recorder/generator.py recorded from torch (rand, randn, uniform_,
// normal_ and nn.Linear, sizes 1 to 40 and larger, after other draws) is replayed here and
// must be equal to the last bit (0 ulp), not within a tolerance.
#include "attn/causal_attention.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/self_attention.hpp"
#include "kit/golden_store.hpp"
#include "kit/torch_generator.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <string>
#include <vector>

namespace {

using attn::kit::golden_store;
using nlohmann::json;

std::vector<float> flat(const attn::Parameter& tensor) { return {tensor.begin(), tensor.end()}; }

// One call of tools/recorder/generator.py's vocabulary, its result flattened.
std::vector<float> run(attn::TorchGenerator& torch, const std::string& op, const json& args,
                       const json& extra) {
    if (op == "rand") return flat(torch.rand(args.get<attn::Shape>()));
    if (op == "randn") return flat(torch.randn(args.get<attn::Shape>()));
    if (op == "uniform" || op == "normal") {
        attn::Parameter tensor(args.get<attn::Shape>());
        if (op == "uniform") {
            torch.uniform_(tensor, extra.at(0).get<double>(), extra.at(1).get<double>());
        } else {
            torch.normal_(tensor, extra.at(0).get<double>(), extra.at(1).get<double>());
        }
        return flat(tensor);
    }
    if (op == "linear") {
        const auto layer =
            attn::Linear::make(torch, "layer", args.at(0).get<std::size_t>(),
                               args.at(1).get<std::size_t>(), args.at(2).get<bool>());
        std::vector<float> values = flat(layer.weight);
        values.insert(values.end(), layer.bias.begin(), layer.bias.end());
        return values;
    }
    ADD_FAILURE() << "unknown generator call " << op;
    return {};
}

TEST(TorchGeneratorTest, DrawsEveryRecordedSampleBitForBit) {
    const golden_store& store = golden_store::instance();
    const auto samples = store.files("generator_sample");
    ASSERT_GE(samples.size(), 20u) << "tools/record recorded no kit/torch_generator samples";
    for (const auto* sample : samples) {
        const auto recorded = std::get<attn::kit::float_tensor>(store.load(sample->path));
        const json calls = json::parse(sample->generator_calls);
        const std::uint64_t seed = std::stoull(calls.at("seed").get<std::string>());
        const std::string op = calls.at("op").get<std::string>();
        std::size_t at = 0, differing = 0;
        std::string first_difference;
        for (const json& size : calls.at("sizes")) {
            attn::TorchGenerator torch(seed);
            for (const json& before : calls.at("before")) {
                run(torch, before.at(0).get<std::string>(), before.at(1), json::array());
            }
            const std::vector<float> drawn = run(torch, op, size, calls.at("args"));
            ASSERT_LE(at + drawn.size(), recorded.size()) << sample->path;
            for (std::size_t i = 0; i < drawn.size(); ++i, ++at) {
                if (std::memcmp(&drawn[i], &recorded.flat(at), sizeof(float)) == 0) continue;
                if (differing++ == 0) {
                    first_difference = op + " of size " + size.dump() + ", element " +
                                       std::to_string(i) + ": C++ " + std::to_string(drawn[i]) +
                                       ", PyTorch " + std::to_string(recorded.flat(at));
                }
            }
        }
        EXPECT_EQ(at, recorded.size()) << sample->path << ": C++ drew fewer values";
        EXPECT_EQ(differing, 0u) << sample->path << " (seed " << seed << "): " << differing
                                 << " of " << recorded.size() << " values differ; first at "
                                 << first_difference;
    }
}

// A module asks for its parameters in its __init__'s order, so a module built from a
// generator holds PyTorch's: SelfAttention_v1(3, 2) after torch.manual_seed(123) is three
// torch.rand(3, 2) in the order W_query, W_key, W_value.
TEST(TorchGeneratorTest, ModulesDrawTheirParametersInInitOrder) {
    attn::TorchGenerator torch(123);
    const attn::SelfAttention_v1 module(3, 2, torch);
    attn::TorchGenerator again(123);
    EXPECT_EQ(module.W_query, again.rand({3, 2}));
    EXPECT_EQ(module.W_key, again.rand({3, 2}));
    EXPECT_EQ(module.W_value, again.rand({3, 2}));

    attn::TorchGenerator torch_mha(7), by_hand(7);
    const attn::MultiHeadAttention mha(4, 6, 5, 2, true, torch_mha);
    for (const attn::Linear* layer : {&mha.W_query, &mha.W_key, &mha.W_value, &mha.out_proj}) {
        const attn::Linear expected =
            attn::Linear::make(by_hand, "", layer->d_in(), layer->d_out(), true);
        EXPECT_EQ(layer->weight, expected.weight);
        EXPECT_EQ(layer->bias, expected.bias);
    }
}

// torch.manual_seed keeps the low 32 bits of the seed, and forgets a cached normal value.
TEST(TorchGeneratorTest, ManualSeedRestartsTheEngineAndTheCachedNormal) {
    attn::TorchGenerator torch(5), wrapped(5 + (std::uint64_t{1} << 32));
    EXPECT_EQ(torch.random32(), wrapped.random32());
    torch.manual_seed(9);
    const attn::Parameter first = torch.randn({3});  // leaves a cached value
    torch.manual_seed(9);
    EXPECT_EQ(torch.randn({3}), first);
}

}  // namespace
