// kit/gpu/fused_module.hpp — MultiHeadAttention's forward on the GPU track: projections on
// the backend's BLAS, split, a fused causal attention kernel (exercise 23's, or the fast CUDA
// one), merge, out_proj. Plain pointers (nvcc reads this header); kit/gpu/tensors.hpp builds
// one from an attn::MultiHeadAttention.
#pragma once

#include "attn/fused_attention.hpp"
#include "kit/gpu/backend.hpp"

#include <cstdint>
#include <optional>

namespace attn::gpu {

// A Linear's parameters in host memory, PyTorch's layout: weight (d_out, d_in), bias (d_out)
// or nullptr.
struct HostLinear {
    const float* weight = nullptr;
    const float* bias = nullptr;
};

// The sizes MultiHeadAttention's constructor takes (dropout is 0: the kit's modules are in
// eval mode).
struct ModuleSizes {
    std::int64_t d_in = 0, d_out = 0, context_length = 0, num_heads = 0;
};

class FusedMultiHeadAttention {
public:
    // Copies the parameters to the backend's memory. Throws shape_error (attn/errors.hpp) if
    // a size is zero or num_heads does not divide d_out.
    FusedMultiHeadAttention(const ModuleSizes& sizes, const HostLinear& W_query,
                            const HostLinear& W_key, const HostLinear& W_value,
                            const HostLinear& out_proj);

    // x (B, T, d_in) -> context (B, T, d_out), both in the backend's memory; `kernel` computes
    // the attention of the split heads. Throws shape_error if T exceeds context_length. Not
    // const: the intermediate tensors live in buffers the module keeps for its next call.
    void forward(const float* x, float* context, std::int64_t batch, std::int64_t tokens,
                 CausalAttentionKernel kernel);

    const ModuleSizes& sizes() const { return sizes_; }

private:
    // W_query, W_key and W_value as ONE Linear (3 * d_out, d_in): one matrix product projects
    // x into queries, keys and values side by side, (B, T, 3 * d_out).
    DeviceArray qkv_weight_;
    std::optional<DeviceArray> qkv_bias_;
    DeviceArray out_weight_;
    std::optional<DeviceArray> out_bias_;
    ModuleSizes sizes_;
    // (B, T, 3 * d_out) projections; queries, keys, values and context in heads; merged
    // context. Grown to the largest B * T seen.
    std::optional<DeviceArray> projected_, queries_, keys_, values_, heads_context_, merged_;
};

}  // namespace attn::gpu
