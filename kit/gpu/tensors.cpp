// kit/gpu/tensors.cpp — the GPU track on attn tensors (kit/gpu/tensors.hpp): each tensor is
// copied into the backend's memory, the kernel or the fused module runs there, the result is
// copied back. g++ only: this is where xtensor meets the plain pointers of the .cu files.
#include "kit/gpu/tensors.hpp"

#include "attn/checks.hpp"
#include "kit/gpu/backend.hpp"
#include "kit/gpu/fused_module.hpp"

#include <cstdint>

namespace attn::gpu {

namespace {

template <class Tensor>
DeviceArray on_device(const Tensor& tensor) {
    return DeviceArray(tensor.data(), tensor.size());
}

HostLinear host_linear(const Linear& layer) {
    return {layer.weight.data(), layer.bias.size() > 0 ? layer.bias.data() : nullptr};
}

std::int64_t signed_size(std::size_t n) { return static_cast<std::int64_t>(n); }

}  // namespace

Tensor4 causal_attention(const Tensor4& queries, const Tensor4& keys, const Tensor4& values,
                         CausalAttentionKernel kernel) {
    checks::require_attention_heads("causal_attention", queries, keys, values);
    const auto& s = queries.shape();
    const HeadsShape shape{signed_size(s[0]), signed_size(s[1]), signed_size(s[2]),
                           signed_size(s[3])};
    const DeviceArray q = on_device(queries), k = on_device(keys), v = on_device(values);
    DeviceArray context(queries.size());
    kernel(q.data(), k.data(), v.data(), context.data(), shape);
    Tensor4 result(s);
    context.copy_to_host(result.data());
    return result;
}

Tensor3 multi_head_attention(const MultiHeadAttention& module, const Tensor3& x,
                             CausalAttentionKernel kernel) {
    checks::require_batch("multi_head_attention", x, module.d_in(), module.context_length());
    const ModuleSizes sizes{signed_size(module.d_in()), signed_size(module.d_out()),
                            signed_size(module.context_length()), signed_size(module.num_heads)};
    FusedMultiHeadAttention fused(sizes, host_linear(module.W_query), host_linear(module.W_key),
                                  host_linear(module.W_value), host_linear(module.out_proj));
    const DeviceArray input = on_device(x);
    DeviceArray output(x.shape(0) * x.shape(1) * module.d_out());
    fused.forward(input.data(), output.data(), signed_size(x.shape(0)), signed_size(x.shape(1)),
                  kernel);
    Tensor3 result({x.shape(0), x.shape(1), module.d_out()});
    output.copy_to_host(result.data());
    return result;
}

}  // namespace attn::gpu
