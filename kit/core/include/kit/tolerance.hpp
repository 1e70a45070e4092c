// kit/tolerance.hpp — the kit's one tolerance rule.
//
// A float32 value passes when
//     |got - expected| <= factor * (atol + rtol * sqrt(n) * scale)
// where scale is the error magnitude of a correct float32 computation of that value: the
// magnitude of everything that was summed to make it (sum of |terms| for a dot product,
// propagated to first order through softmax and later steps), recorded in float64 by
// tools/record beside each expected golden. A rule relative to |expected| alone fails correct
// code on large sums that cancel; this one follows the error a correct computation can make.
//
// Derived from float32's unit roundoff u = 2^-24, not from a library's defaults: one sum of n
// terms, in any order, errs by at most about n * u * scale, and rounding errors add up like a
// random walk, so sqrt(n) * u * scale is typical. rtol = 8u makes 8 * sqrt(n) * u * scale,
// the worst case itself for n <= 64 and 8x the typical error beyond: a loop instead of BLAS,
// another summation order, OpenBLAS threads or a GPU still pass. atol, 1e-6, only covers
// values whose scale is about 0. The kit's solutions err by at most 1.3 * sqrt(n) * u * scale;
// the notebook's 4-decimal printed values (errors up to 5e-5) fail: the tolerance is what
// float32 needs, no wider. `factor` is 1 unless the golden records its own, with a reason (a
// fused GPU kernel, say).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

namespace attn::kit {

struct tolerance {
    static constexpr double base_atol = 1e-6;
    static constexpr double base_rtol = 8.0 / (1 << 24);  // 8u

    double atol;
    double rtol;
    std::size_t reduction;
    double factor = 1.0;
    std::string reason;  // why factor != 1, as the recorder wrote it

    static tolerance for_reduction(std::size_t n, double factor = 1.0, std::string reason = {}) {
        const double growth = std::sqrt(static_cast<double>(std::max<std::size_t>(n, 1)));
        return {base_atol, base_rtol * growth, n, factor, std::move(reason)};
    }

    // The largest |got - expected| allowed for a value whose error magnitude is `scale`.
    double allowed(double scale) const { return factor * (atol + rtol * std::abs(scale)); }
};

}  // namespace attn::kit
