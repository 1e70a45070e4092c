// attn/gpu/fused_module.hpp — MultiHeadAttention's forward on the GPU track: projections on
// the backend's BLAS, split, a fused causal attention kernel (exercise 23's, or the fast CUDA
// one), merge, out_proj. Plain pointers (nvcc reads this header); attn/gpu/tensors.hpp builds
// one from an attn::MultiHeadAttention.
#pragma once

#include "attn/fused_attention.hpp"
#include "attn/gpu/backend.hpp"

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
    // the attention of the split heads. Throws shape_error if T exceeds context_length.
    void forward(const float* x, float* context, std::int64_t batch, std::int64_t tokens,
                 CausalAttentionKernel kernel) const;

    const ModuleSizes& sizes() const { return sizes_; }

private:
    struct Layer {
        DeviceArray weight;
        std::optional<DeviceArray> bias;
    };
    static Layer upload(const HostLinear& layer, std::int64_t rows, std::int64_t cols);

    ModuleSizes sizes_;
    Layer query_, key_, value_, out_;
};

}  // namespace attn::gpu
