// kit/cpu/fast_attention.hpp — exercise 19's MultiHeadAttention.forward, computed the
// way production CPU kernels compute it (kit/cpu/fast_attention.cpp says how, and which ideas
// it takes from PyTorch's and ggml's CPU kernels).
//
// Not an exercise: the kit's showcase beside the teaching solution, timed by `tools/kit dev bench`
// and checked against exercise 19's goldens by its own test program (ctest
// kit.fast_cpu_attention_goldens). Same result as the module's forward within the kit's
// tolerance, dropout 0.
#pragma once

#include "attn/multi_head_attention.hpp"
#include "attn/tensor.hpp"

#include <cstddef>
#include <vector>

namespace attn::cpu {

// A MultiHeadAttention's parameters packed for the fast forward, once: the three projections
// as one (3·d_out, d_in) weight, so that x is read by one GEMM instead of three.
class FastMultiHeadAttention {
public:
    explicit FastMultiHeadAttention(const MultiHeadAttention& module);

    // x: (B, T, d_in) -> (B, T, d_out), checked as MultiHeadAttention.forward checks it.
    Tensor3 forward(const Tensor3& x) const;

private:
    std::size_t d_in_, d_out_, num_heads_, context_length_;
    std::vector<float> qkv_weight_;  // (3·d_out, d_in): W_query's rows, W_key's, W_value's
    std::vector<float> qkv_bias_;    // (3·d_out,), or empty without qkv_bias
    std::vector<float> out_weight_;  // (d_out, d_out)
    std::vector<float> out_bias_;    // (d_out,)
};

}  // namespace attn::cpu
