// kit/tolerance.hpp — the kit's one tolerance rule.
//
// A value passes when |actual - expected| <= atol + rtol * |expected|.
// The base values are torch.testing.assert_close's float32 defaults (atol 1e-5, rtol 1.3e-6).
// Both grow with sqrt(n), n = the length of the longest sum behind the value (the recorder
// writes it into MANIFEST.json as "reduction"): rounding errors of a float32 sum of n terms
// add up like a random walk, and a correct answer summed in another order (a loop instead of
// BLAS, another CPU or a GPU) must still pass. An answer that is off by 1e-3 never does for
// the sizes this kit uses (n <= 1024 gives atol <= 3.2e-4).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace attn::kit {

struct Tolerance {
    double atol;
    double rtol;
    std::size_t reduction;

    static Tolerance for_reduction(std::size_t n) {
        const double scale = std::sqrt(static_cast<double>(std::max<std::size_t>(n, 1)));
        return {1e-5 * scale, 1.3e-6 * scale, n};
    }

    double allowed(double expected) const { return atol + rtol * std::abs(expected); }
};

}  // namespace attn::kit
