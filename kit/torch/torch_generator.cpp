// kit/torch/torch_generator.cpp — attn::TorchGenerator (kit/torch/include/kit/torch_generator.hpp).
//
// Every float operation below is the one PyTorch performs, in the same order, so this file is
// compiled with -ffp-contract=off (CMakeLists.txt): a compiler that fused a multiply and an
// add on its own would round once where PyTorch rounds twice. Where PyTorch does fuse (the
// uniform transform, normal's final x · std + mean), std::fma says so.
#include "kit/torch_generator.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace attn {
namespace {

constexpr double kPi = 3.14159265358979323846;

std::uint32_t bits_of(float x) {
    std::uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    return bits;
}

float float_of(std::uint32_t bits) {
    float x;
    std::memcpy(&x, &bits, sizeof x);
    return x;
}

// ---- avx_mathfun.h's log256_ps and sincos256_ps, one lane at a time -----------------------
// Julien Pommier's SSE/AVX ports of the Cephes float functions (zlib licence), as PyTorch's
// AVX2 randn calls them. Each line is one or two instructions of the original. GCC implements
// _mm256_mul_ps and _mm256_add_ps as vector arithmetic, and PyTorch's AVX2 build (-mfma, GCC's
// default -ffp-contract=fast) fuses a multiply into the add or subtract that is its only use,
// the earlier multiply when an add has two: those pairs are std::fma here.

float cephes_log(float x) {
    const bool invalid = x <= 0.0f;         // PyTorch never passes one: u1 is in (0, 1]
    x = std::max(x, float_of(0x00800000));  // cut off denormals
    std::int32_t exponent = static_cast<std::int32_t>(bits_of(x) >> 23);
    x = float_of((bits_of(x) & ~0x7f800000u) | bits_of(0.5f));  // mantissa in [0.5, 1)
    exponent -= 0x7f;
    float e = static_cast<float>(exponent);
    e = e + 1.0f;
    const bool below = x < static_cast<float>(0.707106781186547524);
    const float tmp = below ? x : 0.0f;
    x = x - 1.0f;
    e = e - (below ? 1.0f : 0.0f);
    x = x + tmp;
    const float z = x * x;
    static const float p[] = {
        static_cast<float>(7.0376836292E-2), static_cast<float>(-1.1514610310E-1),
        static_cast<float>(1.1676998740E-1), static_cast<float>(-1.2420140846E-1),
        static_cast<float>(1.4249322787E-1), static_cast<float>(-1.6668057665E-1),
        static_cast<float>(2.0000714765E-1), static_cast<float>(-2.4999993993E-1),
        static_cast<float>(3.3333331174E-1)};
    float y = p[0];
    for (int i = 1; i < 9; ++i) y = std::fma(y, x, p[i]);  // y = y·x; y = y + p[i]
    y = y * x;
    y = std::fma(y, z, e * static_cast<float>(-2.12194440e-4));  // y = y·z; y = y + e·q1
    y = std::fma(-z, 0.5f, y);                                   // y = y − z·0.5
    x = x + y;
    x = std::fma(e, 0.693359375f, x);  // x = x + e·q2
    return invalid ? float_of(bits_of(x) | 0xffffffffu) : x;
}

void cephes_sincos(float x, float& sine, float& cosine) {
    std::uint32_t sign_sin = bits_of(x) & 0x80000000u;
    x = float_of(bits_of(x) & 0x7fffffffu);
    float y = x * static_cast<float>(1.27323954473516);  // 4 / pi
    std::int32_t j = static_cast<std::int32_t>(y);       // truncates, as cvttps does
    j = (j + 1) & ~1;
    y = static_cast<float>(j);
    const std::uint32_t swap_sign_sin = static_cast<std::uint32_t>(j & 4) << 29;
    const bool first_polynomial_is_cos = (j & 2) == 0;
    // x = ((x - y·DP1) - y·DP2) - y·DP3: pi/4 in three parts, "extended precision".
    x = std::fma(y, static_cast<float>(-0.78515625), x);
    x = std::fma(y, static_cast<float>(-2.4187564849853515625e-4), x);
    x = std::fma(y, static_cast<float>(-3.77489497744594108e-8), x);
    const std::uint32_t sign_cos = static_cast<std::uint32_t>(~(j - 2) & 4) << 29;
    sign_sin ^= swap_sign_sin;

    const float z = x * x;
    float c = static_cast<float>(2.443315711809948E-005);
    c = std::fma(c, z, static_cast<float>(-1.388731625493765E-003));
    c = std::fma(c, z, static_cast<float>(4.166664568298827E-002));
    c = c * z;
    c = std::fma(c, z, -(z * 0.5f));  // c = c·z; c = c − z·0.5
    c = c + 1.0f;

    float s = static_cast<float>(-1.9515295891E-4);
    s = std::fma(s, z, static_cast<float>(8.3321608736E-3));
    s = std::fma(s, z, static_cast<float>(-1.6666654611E-1));
    s = s * z;
    s = std::fma(s, x, x);  // s = s·x; s = s + x

    // Both polynomials are computed; masks pick one for the sine, the other for the cosine.
    const float sin_from_s = first_polynomial_is_cos ? s : 0.0f;
    const float sin_from_c = first_polynomial_is_cos ? 0.0f : c;
    s = s - sin_from_s;
    c = c - sin_from_c;
    sine = float_of(bits_of(sin_from_c + sin_from_s) ^ sign_sin);
    cosine = float_of(bits_of(c + s) ^ sign_cos);
}

// normal_fill_16_AVX2: Box–Muller on 16 uniforms in place, pairs (j, j + 8).
void normal_fill_16(float* data, float mean, float std) {
    const float two_pi = static_cast<float>(2.0f * kPi);
    for (int j = 0; j < 8; ++j) {
        const float u1 = 1.0f - data[j];  // [0, 1) -> (0, 1] for the log
        const float u2 = data[j + 8];
        const float radius = std::sqrt(-2.0f * cephes_log(u1));
        const float theta = two_pi * u2;
        float sine, cosine;
        cephes_sincos(theta, sine, cosine);
        data[j] = std::fma(radius * cosine, std, mean);
        data[j + 8] = std::fma(radius * sine, std, mean);
    }
}

}  // namespace

void TorchGenerator::manual_seed(std::uint64_t seed) {
    engine_.seed(static_cast<std::uint32_t>(seed));  // at::mt19937 keeps the low 32 bits
    next_double_normal_.reset();
}

std::uint32_t TorchGenerator::random32() { return static_cast<std::uint32_t>(engine_()); }

float TorchGenerator::unit_uniform() {
    return static_cast<float>(random32() & 0xffffffu) * (1.0f / 16777216.0f);  // 24 bits
}

std::uint64_t TorchGenerator::random64() {
    const std::uint64_t high = random32();
    return (high << 32) | random32();
}

void TorchGenerator::uniform_(Parameter& tensor, double from, double to) {
    const float low = static_cast<float>(from), high = static_cast<float>(to);
    for (float& value : tensor) {
        value = std::fma(unit_uniform(), high - low, low);
    }
}

double TorchGenerator::normal_double() {
    if (next_double_normal_) {
        const double cached = *next_double_normal_;
        next_double_normal_.reset();
        return cached;
    }
    const auto uniform = [this] {
        return static_cast<double>(random64() & ((std::uint64_t{1} << 53) - 1)) *
               (1.0 / 9007199254740992.0);
    };
    const double u1 = uniform();
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(1.0 - u2));
    const double theta = 2.0 * kPi * u1;
    next_double_normal_ = r * std::sin(theta);
    return r * std::cos(theta);
}

void TorchGenerator::normal_(Parameter& tensor, double mean, double std) {
    const std::size_t size = tensor.size();
    if (size < 16) {
        for (float& value : tensor)
            value = static_cast<float>(std::fma(normal_double(), std, mean));
        return;
    }
    const float mean_f = static_cast<float>(mean), std_f = static_cast<float>(std);
    float* data = tensor.data();
    const auto draw_uniforms = [this](float* first, std::size_t count) {
        for (std::size_t i = 0; i < count; ++i) {
            first[i] = unit_uniform();
        }
    };
    draw_uniforms(data, size);
    for (std::size_t i = 0; i + 16 <= size; i += 16) normal_fill_16(data + i, mean_f, std_f);
    if (size % 16 != 0) {  // the last 16 drawn again and transformed again
        draw_uniforms(data + size - 16, 16);
        normal_fill_16(data + size - 16, mean_f, std_f);
    }
}

Parameter TorchGenerator::rand(const Shape& shape) {
    Parameter tensor(shape);
    uniform_(tensor, 0.0, 1.0);
    return tensor;
}

Parameter TorchGenerator::randn(const Shape& shape) {
    Parameter tensor(shape);
    normal_(tensor, 0.0, 1.0);
    return tensor;
}

Parameter TorchGenerator::parameter(const std::string&, const Shape& shape, const Init& init) {
    if (init.rule == Init::Rule::rand) return rand(shape);
    Parameter tensor(shape);
    const double fan_in = static_cast<double>(init.fan_in);
    double bound = 0.0;  // a bias of in_features = 0: PyTorch draws it from [-0, 0]
    if (tensor.size() == 0) {
        return tensor;  // kaiming_uniform_ of a zero-element weight draws nothing
    } else if (init.rule == Init::Rule::linear_weight) {
        // torch.nn.init.kaiming_uniform_(weight, a=math.sqrt(5)), in Python's doubles.
        const double a = std::sqrt(5.0);
        const double gain = std::sqrt(2.0 / (1.0 + std::pow(a, 2)));
        bound = std::sqrt(3.0) * (gain / std::sqrt(fan_in));
    } else if (init.fan_in > 0) {
        bound = 1.0 / std::sqrt(fan_in);
    }
    uniform_(tensor, -bound, bound);
    return tensor;
}

}  // namespace attn
