// attn/arguments_gpu.hpp — the argument checks of the GPU track's host functions (exercises
// 23 and 24), one call each, as attn/arguments.hpp has them for exercises 01 to 22.
//
// A student's host function starts with one line, arguments::fused_causal_attention(shape),
// that rejects bad sizes with a message naming the problem before anything is launched; the
// stub and the solution make that same call, so their checks cannot drift apart. A kernel
// checks nothing: its host wrapper does. Kept apart from attn/arguments.hpp because nvcc
// compiles the .cu files, and they must not include xtensor.
#pragma once

#include "attn/errors.hpp"
#include "attn/fused_attention.hpp"
#include "attn/tiled_attention.hpp"

#include <cstdint>
#include <string>

namespace attn::arguments {

// ---- Exercise 23 — fused causal attention, one Thrust functor per query row -------------
inline void fused_causal_attention(const gpu::HeadsShape& shape) {
    const auto require_positive = [](const char* what, std::int64_t value) {
        if (value <= 0)
            throw shape_error("fused_causal_attention: " + std::string(what) + " is " +
                              std::to_string(value) + ", it must be positive");
    };
    require_positive("batch", shape.batch);
    require_positive("heads", shape.heads);
    require_positive("T", shape.tokens);
    require_positive("head_dim", shape.head_dim);
}

// ---- Exercise 24 — tiled causal attention, one CUDA block per tile of query rows ----------
// Each size fits the launch: batch * heads blocks on a grid's y side (at most 65535), T tokens
// at most 2^24, head_dim at most max_head_dim.
inline void tiled_causal_attention(const gpu::HeadsShape& shape) {
    const auto require_size = [](const char* what, std::int64_t value, std::int64_t most) {
        if (value <= 0 || value > most)
            throw shape_error("tiled_causal_attention: " + std::string(what) + " is " +
                              std::to_string(value) + ", it must be 1.." + std::to_string(most));
    };
    constexpr std::int64_t most_blocks = 65535;  // a grid's y side
    require_size("batch", shape.batch, most_blocks);
    require_size("heads", shape.heads, most_blocks / shape.batch);
    require_size("T", shape.tokens, std::int64_t{1} << 24);
    require_size("head_dim", shape.head_dim, gpu::max_head_dim);
}

}  // namespace attn::arguments
