// kit/gpu/fused_module.cu — MultiHeadAttention's forward on the GPU track
// (kit/gpu/fused_module.hpp): ch03.ipynb In [36] with the attention fused into one kernel.
//   x (B, T, d_in) --one Linear (3 * d_out, d_in)--> queries | keys | values (B, T, 3 * d_out)
//   --split_heads--> three (B, heads, T, head_dim) --kernel--> context (B, heads, T, head_dim)
//   --merge_heads--> (B, T, d_out) --out_proj--> (B, T, d_out)
// Compiled by nvcc (CUDA) or g++ (Thrust's OpenMP backend); no Thrust here, only the backend.
#include "attn/errors.hpp"
#include "kit/gpu/fused_module.hpp"

#include <string>
#include <vector>

namespace attn::gpu {

namespace {

void require_positive(const char* what, std::int64_t value) {
    if (value <= 0)
        throw shape_error("FusedMultiHeadAttention: " + std::string(what) + " is " +
                          std::to_string(value) + ", it must be positive");
}

// The rows of the three layers' weights (or biases) one under the other.
std::vector<float> stacked(const float* query, const float* key, const float* value,
                           std::size_t count) {
    std::vector<float> all(query, query + count);
    all.insert(all.end(), key, key + count);
    all.insert(all.end(), value, value + count);
    return all;
}

void grow(std::optional<DeviceArray>& buffer, std::size_t count) {
    if (!buffer || buffer->size() < count) buffer.emplace(count);
}

}  // namespace

FusedMultiHeadAttention::FusedMultiHeadAttention(const ModuleSizes& sizes,
                                                 const HostLinear& W_query, const HostLinear& W_key,
                                                 const HostLinear& W_value,
                                                 const HostLinear& out_proj)
    : qkv_weight_(0), out_weight_(0), sizes_(sizes) {
    require_positive("d_in", sizes.d_in);
    require_positive("d_out", sizes.d_out);
    require_positive("context_length", sizes.context_length);
    require_positive("num_heads", sizes.num_heads);
    if (sizes.d_out % sizes.num_heads != 0)
        throw shape_error("FusedMultiHeadAttention: d_out = " + std::to_string(sizes.d_out) +
                          " is not divisible by num_heads = " + std::to_string(sizes.num_heads));
    const bool qkv_bias = W_query.bias != nullptr;
    if ((W_key.bias != nullptr) != qkv_bias || (W_value.bias != nullptr) != qkv_bias)
        throw shape_error(
            "FusedMultiHeadAttention: W_query, W_key and W_value must all have a "
            "bias or none (qkv_bias)");
    const auto d_in = static_cast<std::size_t>(sizes.d_in);
    const auto d_out = static_cast<std::size_t>(sizes.d_out);
    const auto weights = stacked(W_query.weight, W_key.weight, W_value.weight, d_out * d_in);
    qkv_weight_ = DeviceArray(weights.data(), weights.size());
    if (qkv_bias) {
        const auto biases = stacked(W_query.bias, W_key.bias, W_value.bias, d_out);
        qkv_bias_.emplace(biases.data(), biases.size());
    }
    out_weight_ = DeviceArray(out_proj.weight, d_out * d_out);
    if (out_proj.bias != nullptr) out_bias_.emplace(out_proj.bias, d_out);
}

void FusedMultiHeadAttention::forward(const float* x, float* context, std::int64_t batch,
                                      std::int64_t tokens, CausalAttentionKernel kernel) {
    require_positive("batch", batch);
    require_positive("T", tokens);
    if (tokens > sizes_.context_length)
        throw shape_error(
            "FusedMultiHeadAttention: T = " + std::to_string(tokens) +
            " tokens, more than the context_length = " + std::to_string(sizes_.context_length));
    const std::int64_t d_out = sizes_.d_out, rows = batch * tokens;
    const HeadsShape shape{batch, sizes_.num_heads, tokens, d_out / sizes_.num_heads};
    const auto count = static_cast<std::size_t>(rows * d_out);
    grow(projected_, 3 * count);
    for (auto* buffer : {&queries_, &keys_, &values_, &heads_context_, &merged_})
        grow(*buffer, count);

    linear(x, qkv_weight_.data(), qkv_bias_ ? qkv_bias_->data() : nullptr, projected_->data(), rows,
           sizes_.d_in, 3 * d_out);
    split_heads(projected_->data(), 3 * d_out, queries_->data(), shape);
    split_heads(projected_->data() + d_out, 3 * d_out, keys_->data(), shape);
    split_heads(projected_->data() + 2 * d_out, 3 * d_out, values_->data(), shape);
    kernel(queries_->data(), keys_->data(), values_->data(), heads_context_->data(), shape);
    merge_heads(heads_context_->data(), merged_->data(), shape);
    linear(merged_->data(), out_weight_.data(), out_bias_ ? out_bias_->data() : nullptr, context,
           rows, d_out, d_out);
}

}  // namespace attn::gpu
