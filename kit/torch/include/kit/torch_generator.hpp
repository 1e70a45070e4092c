// kit/torch_generator.hpp — PyTorch's CPU random number generator, bit for bit.
//
// The notebooks seed PyTorch and build modules: `torch.manual_seed(123)` then
// `SelfAttention_v1(3, 2)` draws three torch.rand(3, 2) matrices. A TorchGenerator draws the
// very same float32 numbers, so a C++ port of a cell prints the book's values:
//
//   attn::TorchGenerator torch(123);          // torch.manual_seed(123)
//   attn::SelfAttention_v1 sa_v1(3, 2, torch);  // SelfAttention_v1(d_in=3, d_out=2)
//   attn::Tensor3 inputs = torch.randn<3>({1, 5, 4});  // torch.randn(1, 5, 4)
//
// It is a ParameterSource: a module built from it draws its parameters in the order its
// __init__ does (nn.Linear: weight, then bias), with PyTorch's initialisation.
//
// What it reproduces, from PyTorch 1.13's sources (ATen/core/MT19937RNGEngine.h,
// DistributionsHelper.h, TransformationHelper.h, native/cpu/DistributionTemplates.h and
// avx_mathfun.h), checked against tools/record's samples (tests/kit/test_torch_generator.cpp):
//   - the engine: mt19937 seeded with the low 32 bits of the seed;
//   - uniform_(a, b) and rand: 24 random bits x · 2⁻²⁴, then x · (b − a) + a in float32 with
//     one rounding (a fused multiply-add: the AVX2 build's compiler contracts it);
//   - normal_ and randn on 16 or more elements: every uniform drawn first, then Box–Muller on
//     groups of 16 (u1 = 1 − data[j], u2 = data[j + 8]) with avx_mathfun's log and sincos
//     (Cephes polynomials, float32, with the multiply-adds GCC fused in PyTorch's AVX2
//     build), a tail that is not a multiple of 16 redrawn as the last 16; on fewer than 16
//     elements, Box–Muller in double per element, from 53-bit uniforms, with the second value of
//     each pair kept for the next draw (PyTorch's cached normal);
//   - nn.Linear(in, out): kaiming_uniform_(weight, a=√5), bound √3 · √(2/(1 + a²)) / √in
//     computed in double as Python does, then the bias from ±1/√in.
// Which PyTorch builds draw the same numbers: x86-64 CPUs with AVX2 (PyTorch dispatches its
// random kernels to the AVX2 build; tools/record pins ATEN_CPU_CAPABILITY=avx2). PyTorch on
// ARM (e.g. Apple silicon) and on x86 without AVX2 uses the scalar randn with libm's log, cos
// and sin for 16 or more elements, which differ in the last bits. All agree to the 4 decimals
// the books print. Dropout is not here: its mask differs between PyTorch builds (MKL or not).
// Versions: it matches PyTorch 1.13 (Debian 12) bit for bit, and Debian 13's PyTorch 2.6 too
// on every sample tools/record checks (rand, uniform_, normal_, randn, nn.Linear, same draws
// and bits); the one change found, the small-size randn's double Box–Muller (2.6's float64
// randn(15) differs from 1.13's in the last bits), vanished in the rounding to float32 on
// every float32 sample tried (the kit's, and 1,000 draws of sizes 3 to 100).
#pragma once

#include "attn/module.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>

namespace attn {

class TorchGenerator : public ParameterSource {
public:
    // torch.manual_seed(seed); PyTorch's default seed when none is given.
    explicit TorchGenerator(std::uint64_t seed = 67280421310721ULL) { manual_seed(seed); }

    // torch.manual_seed(seed): a new engine, and no cached normal value.
    void manual_seed(std::uint64_t seed);

    // One draw of the engine: 32 random bits (PyTorch's generator->random()).
    std::uint32_t random32();
    // Two draws, the first in the high half (PyTorch's generator->random64()).
    std::uint64_t random64();

    // tensor.uniform_(from, to) and tensor.normal_(mean, std), in row-major order.
    void uniform_(Parameter& tensor, double from, double to);
    void normal_(Parameter& tensor, double mean, double std);

    // torch.rand(shape) and torch.randn(shape).
    Parameter rand(const Shape& shape);
    Parameter randn(const Shape& shape);
    template <std::size_t N>
    xt::xtensor<float, N> randn(const Shape& shape) {
        return randn(shape);
    }

    // ParameterSource: the parameter `name` as PyTorch's __init__ draws it (`init.rule`).
    Parameter parameter(const std::string& name, const Shape& shape, const Init& init) override;

private:
    float unit_uniform();    // uniform_real_distribution<float>(0, 1): 24 random bits x 2^-24
    double normal_double();  // one N(0, 1) sample in double, PyTorch's small-size path

    std::mt19937 engine_;
    std::optional<double> next_double_normal_;
};

}  // namespace attn
