// kit/tolerance.hpp — the kit's one tolerance rule.
//
// A float32 value passes when
//     |got - expected| <= factor * (atol + rtol * scale)
// where scale is the error magnitude of a correct float32 computation of that value: the
// magnitude of everything that was summed to make it (sum of |terms| for a dot product,
// propagated through softmax and later steps), recorded in float64 by tools/record beside
// each expected golden. A rule relative to |expected| alone fails correct code on large
// sums that cancel; this one follows the error a correct computation can make.
//
// atol and rtol are torch.testing.assert_close's float32 defaults (1e-5, 1.3e-6), grown
// with sqrt(n), n = the length of the longest sum behind the value: rounding errors of n
// terms add up like a random walk, so a correct answer summed in another order (a loop
// instead of BLAS, another CPU, a GPU) still passes. `factor` is 1 unless the golden
// records its own, with a reason (a fused GPU kernel, say).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

namespace attn::kit {

struct tolerance {
    static constexpr double base_atol = 1e-5;
    static constexpr double base_rtol = 1.3e-6;

    double atol;
    double rtol;
    std::size_t reduction;
    double factor = 1.0;
    std::string reason;  // why factor != 1, as the recorder wrote it

    static tolerance for_reduction(std::size_t n, double factor = 1.0, std::string reason = {}) {
        const double growth = std::sqrt(static_cast<double>(std::max<std::size_t>(n, 1)));
        return {base_atol * growth, base_rtol * growth, n, factor, std::move(reason)};
    }

    // The largest |got - expected| allowed for a value whose error magnitude is `scale`.
    double allowed(double scale) const { return factor * (atol + rtol * std::abs(scale)); }
};

}  // namespace attn::kit
