// tests/kit/slips/23_fused_attention.cu — exercise 23's solution with the slips students make,
// each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py runs every one and reads the
// status line). Without ATTN_SLIP it is the solution and passes every test. ATTN_SLIP is read
// on the host, before the launch: the functor gets the choice as a plain field, as device
// code cannot call std::getenv. A std::vector in the functor is a slip too, but of the source,
// not of the numbers: tools/kitcli/device_lint.py finds it (tests/kit/test_cli_device_lint.py,
// and status's "device code nvcc would refuse": test_cli_progress.py).
//
// slip: max_started_at_zero -> running_max started at 0
// slip: shared_scratch -> results differ from run to run
// slip: token_by_division -> t = row / T
// slip: head_offset_dropped -> head 0
// slip: batch_offset_dropped -> batch item 0
// slip: running_max_not_updated -> running_max never updated
// slip: sum_not_rescaled -> running_sum not rescaled
// slip: context_not_rescaled -> context row not rescaled
// slip: no_rescale -> without the rescale
// slip: no_mask -> no causal mask
// slip: diagonal_hidden -> cannot see itself
// slip: scale_missing -> not divided by sqrt(head_dim)
// slip: scaled_by_head_dim -> divided by head_dim instead of sqrt(head_dim)
// slip: not_normalized -> never divided by running_sum
// slip: never_launched -> context never written
#include "attn/arguments_gpu.hpp"
#include "attn/errors.hpp"
#include "attn/fused_attention.hpp"
#include "slip.hpp"

#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace {
// The slips the functor makes, read once on the host.
struct Slips {
    bool max_started_at_zero = slip("max_started_at_zero");
    bool shared_scratch = slip("shared_scratch");
    bool token_by_division = slip("token_by_division");
    bool head_offset_dropped = slip("head_offset_dropped");
    bool batch_offset_dropped = slip("batch_offset_dropped");
    bool running_max_not_updated = slip("running_max_not_updated");
    bool sum_not_rescaled = slip("sum_not_rescaled") || slip("no_rescale");
    bool context_not_rescaled = slip("context_not_rescaled") || slip("no_rescale");
    bool no_mask = slip("no_mask");
    bool diagonal_hidden = slip("diagonal_hidden");
    bool not_normalized = slip("not_normalized");
};
}  // namespace

namespace attn::gpu {

namespace {

struct CausalRowAttention {
    const float* queries;  // (B, heads, T, head_dim)
    const float* keys;
    const float* values;
    float* context;
    HeadsShape shape;
    float scale;  // 1 / sqrt(head_dim)
    Slips slips;
    float* scratch;  // shared_scratch: head_dim floats, one buffer for every row

    ATTN_HOST_DEVICE void operator()(std::int64_t row) const {
        const std::int64_t head_dim = shape.head_dim;
        std::int64_t t = row % shape.tokens;
        if (slips.token_by_division) t = row / shape.tokens;
        std::int64_t first_row = row - t;  // token 0 of this row's (b, h)
        if (slips.head_offset_dropped) {
            const std::int64_t b = row / (shape.heads * shape.tokens);
            first_row = b * shape.heads * shape.tokens;
        }
        if (slips.batch_offset_dropped) {
            const std::int64_t h = row / shape.tokens % shape.heads;
            first_row = h * shape.tokens;
        }
        const float* query_t = queries + row * head_dim;
        float* context_t = context + row * head_dim;
        float* acc = slips.shared_scratch ? scratch : context_t;
        for (std::int64_t k = 0; k < head_dim; ++k) acc[k] = 0.0f;

        float running_max = slips.max_started_at_zero ? 0.0f : -INFINITY, running_sum = 0.0f;
        const std::int64_t last = slips.no_mask ? shape.tokens : slips.diagonal_hidden ? t : t + 1;
        for (std::int64_t j = 0; j < last; ++j) {  // causal: keys 0..t
            const float* key_j = keys + (first_row + j) * head_dim;
            const float* value_j = values + (first_row + j) * head_dim;
            float score = 0.0f;
            for (std::int64_t k = 0; k < head_dim; ++k) score += query_t[k] * key_j[k];
            score *= scale;

            const float new_max = fmaxf(running_max, score);
            const float correction = expf(running_max - new_max);  // 0 at j = 0: exp(-inf)
            const float weight = expf(score - new_max);
            running_sum =
                (slips.sum_not_rescaled ? running_sum : running_sum * correction) + weight;
            for (std::int64_t k = 0; k < head_dim; ++k)
                acc[k] = (slips.context_not_rescaled ? acc[k] : acc[k] * correction) +
                         weight * value_j[k];
            if (!slips.running_max_not_updated) running_max = new_max;
        }
        for (std::int64_t k = 0; k < head_dim; ++k)
            context_t[k] = slips.not_normalized ? acc[k] : acc[k] / running_sum;
    }
};

}  // namespace

void fused_causal_attention(const float* queries, const float* keys, const float* values,
                            float* context, const HeadsShape& shape) {
    arguments::fused_causal_attention(shape);  // bad input -> a clear error

    float scale = 1.0f / sqrtf(static_cast<float>(shape.head_dim));
    if (slip("scale_missing")) scale = 1.0f;
    if (slip("scaled_by_head_dim")) scale = 1.0f / static_cast<float>(shape.head_dim);
    if (slip("never_launched")) return;
    thrust::device_vector<float> scratch(shape.head_dim);
    thrust::for_each(thrust::device, thrust::counting_iterator<std::int64_t>(0),
                     thrust::counting_iterator<std::int64_t>(shape.rows()),
                     CausalRowAttention{queries, keys, values, context, shape, scale, Slips{},
                                        thrust::raw_pointer_cast(scratch.data())});
}

}  // namespace attn::gpu
