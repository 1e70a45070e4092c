// tests/kit/test_fast_attention_emulation.cpp — the fast CUDA attention kernels
// (kit/gpu/fast_attention_kernels.cuh) run on the CPU, on every machine, GPU or not, and
// checked against a double-precision causal attention.
//
// The kernels' own source is compiled by g++ here, with CUDA's names defined on the host: one
// std::thread per CUDA thread of a block, a barrier for __syncthreads, a per-warp exchange
// for __shfl_xor_sync, __shared__ arrays as statics (one block runs at a time). This checks
// the kernels' logic (indices, tiles, the causal diagonal, T not a multiple of a tile, the
// online softmax, rows past T writing nothing), not nvcc's code or the launch: the CUDA
// build's GPU tests do that on a GPU.
//   ctest -R kit.fast_attention_emulation
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

// ---- CUDA's names on the host ----------------------------------------------------------------

namespace emulated {

struct index3 {
    unsigned x = 0, y = 0, z = 0;
};

// A reusable barrier of `count` threads (std::barrier is C++20; the kit builds C++17).
class Barrier {
public:
    explicit Barrier(int count) : count_(count) {}
    void arrive_and_wait() {
        std::unique_lock<std::mutex> lock(mutex_);
        const long generation = generation_;
        if (++arrived_ == count_) {
            arrived_ = 0;
            ++generation_;
            all_arrived_.notify_all();
        } else {
            all_arrived_.wait(lock, [&] { return generation_ != generation; });
        }
    }

private:
    std::mutex mutex_;
    std::condition_variable all_arrived_;
    int count_, arrived_ = 0;
    long generation_ = 0;
};

struct Warp {
    Barrier barrier{32};
    float lanes[32] = {};
};

thread_local Warp* this_warp = nullptr;
thread_local int this_lane = 0;
Barrier* this_block = nullptr;

}  // namespace emulated

struct float4 {
    float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }

thread_local emulated::index3 threadIdx, blockIdx;
emulated::index3 blockDim, gridDim;
using std::min;

inline void __syncthreads() { emulated::this_block->arrive_and_wait(); }

// Every lane of the warp writes its value, then reads lane ^ offset's.
inline float __shfl_xor_sync(unsigned /*mask*/, float value, int offset) {
    emulated::this_warp->lanes[emulated::this_lane] = value;
    emulated::this_warp->barrier.arrive_and_wait();
    const float other = emulated::this_warp->lanes[emulated::this_lane ^ offset];
    emulated::this_warp->barrier.arrive_and_wait();
    return other;
}

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(threads)
#define __shared__ static

#include "fast_attention_kernels.cuh"

namespace {

using attn::gpu::detail::causal_attention_generic;
using attn::gpu::detail::causal_attention_tiled;
using attn::gpu::detail::TileConfig;

// ---- launches, as fast_attention.cu makes them -----------------------------------------------

// scale_log2 = log2(e) / sqrt(head_dim), as fast_causal_attention passes it.
float scale_log2_of(int head_dim) {
    return static_cast<float>(1.4426950408889634 / std::sqrt(static_cast<double>(head_dim)));
}

// Grid (B * heads, ceil(T / 64)), one block at a time, its threads concurrent.
template <int HEAD_DIM>
void run_tiled(const std::vector<float>& queries, const std::vector<float>& keys,
               const std::vector<float>& values, std::vector<float>& context, int heads_total,
               int tokens) {
    using Config = TileConfig<HEAD_DIM>;
    gridDim = {static_cast<unsigned>(heads_total),
               static_cast<unsigned>((tokens + Config::kRowsPerBlock - 1) / Config::kRowsPerBlock),
               1};
    blockDim = {Config::kThreads, 1, 1};
    for (unsigned block_y = 0; block_y < gridDim.y; ++block_y) {
        for (unsigned block_x = 0; block_x < gridDim.x; ++block_x) {
            emulated::Barrier block_barrier(Config::kThreads);
            emulated::this_block = &block_barrier;
            std::vector<std::unique_ptr<emulated::Warp>> warps;
            for (int w = 0; w < Config::kThreads / 32; ++w) {
                warps.push_back(std::make_unique<emulated::Warp>());
            }
            std::vector<std::thread> threads;
            for (int tid = 0; tid < Config::kThreads; ++tid) {
                threads.emplace_back([&, tid] {
                    threadIdx = {static_cast<unsigned>(tid), 0, 0};
                    blockIdx = {block_x, block_y, 0};
                    emulated::this_warp = warps[tid / 32].get();
                    emulated::this_lane = tid % 32;
                    causal_attention_tiled<HEAD_DIM>(
                        reinterpret_cast<const float4*>(queries.data()),
                        reinterpret_cast<const float4*>(keys.data()),
                        reinterpret_cast<const float4*>(values.data()),
                        reinterpret_cast<float4*>(context.data()), tokens, scale_log2_of(HEAD_DIM));
                });
            }
            for (auto& thread : threads) thread.join();
        }
    }
}

// The generic kernel has no barrier or shuffle: its threads run one after the other.
void run_generic(const std::vector<float>& queries, const std::vector<float>& keys,
                 const std::vector<float>& values, std::vector<float>& context, int heads_total,
                 int tokens, int head_dim) {
    const std::int64_t rows = static_cast<std::int64_t>(heads_total) * tokens;
    blockDim = {128, 1, 1};
    gridDim = {static_cast<unsigned>((rows + 127) / 128), 1, 1};
    for (unsigned block = 0; block < gridDim.x; ++block) {
        for (unsigned tid = 0; tid < blockDim.x; ++tid) {
            blockIdx = {block, 0, 0};
            threadIdx = {tid, 0, 0};
            causal_attention_generic(queries.data(), keys.data(), values.data(), context.data(),
                                     rows, tokens, head_dim, scale_log2_of(head_dim));
        }
    }
}

// ---- the check -------------------------------------------------------------------------------

struct Case {
    int heads_total, tokens, head_dim;  // B * heads, T, head_dim
    float spread;                       // standard deviation of q, k, v
};

// Guard rows after the context: a row past T of the last (b, h) that wrote at its own index
// would land here (the kernel computes such a row as row T - 1 and writes nothing).
constexpr int kGuardRows = 64;

// Runs the kernel for head_dim (tiled for 32, 64, 128 unless generic is asked for) on normal
// q, k, v and compares every context value with a double causal attention. The tolerance
// grows with spread^2, the scale of the scores whose fp32 rounding it absorbs (observed
// errors are 10x below it).
void expect_matches_reference(const Case& c, bool generic = false) {
    SCOPED_TRACE(::testing::Message() << "B * heads = " << c.heads_total << ", T = " << c.tokens
                                      << ", head_dim = " << c.head_dim << ", spread = " << c.spread
                                      << (generic ? ", generic kernel" : ""));
    const std::int64_t rows = static_cast<std::int64_t>(c.heads_total) * c.tokens;
    const std::int64_t size = rows * c.head_dim;
    std::mt19937 rng(1234 + c.tokens * 7 + c.head_dim);
    std::normal_distribution<float> normal(0.f, c.spread);
    std::vector<float> queries(size), keys(size), values(size);
    for (auto* tensor : {&queries, &keys, &values}) {
        for (float& x : *tensor) x = normal(rng);
    }
    std::vector<float> context(size + kGuardRows * c.head_dim, NAN);

    if (generic) {
        run_generic(queries, keys, values, context, c.heads_total, c.tokens, c.head_dim);
    } else if (c.head_dim == 32) {
        run_tiled<32>(queries, keys, values, context, c.heads_total, c.tokens);
    } else if (c.head_dim == 64) {
        run_tiled<64>(queries, keys, values, context, c.heads_total, c.tokens);
    } else if (c.head_dim == 128) {
        run_tiled<128>(queries, keys, values, context, c.heads_total, c.tokens);
    } else {
        run_generic(queries, keys, values, context, c.heads_total, c.tokens, c.head_dim);
    }

    const double tolerance = 1e-6 + 2e-5 * c.spread * c.spread;
    int mismatches = 0;
    for (std::int64_t row = 0; row < rows; ++row) {
        const std::int64_t t = row % c.tokens, first_row = row - t, d = c.head_dim;
        // pass 1: scores of keys 0..t and their max; pass 2: exp and sum; pass 3: weighted sum
        std::vector<double> weight(t + 1);
        double max_score = -INFINITY;
        for (std::int64_t key_t = 0; key_t <= t; ++key_t) {
            double dot = 0;
            for (std::int64_t k = 0; k < d; ++k) {
                dot += double(queries[row * d + k]) * keys[(first_row + key_t) * d + k];
            }
            weight[key_t] = dot / std::sqrt(double(d));
            max_score = std::max(max_score, weight[key_t]);
        }
        double sum = 0;
        for (double& w : weight) sum += (w = std::exp(w - max_score));
        for (std::int64_t k = 0; k < d && mismatches < 5; ++k) {
            double expected = 0;
            for (std::int64_t key_t = 0; key_t <= t; ++key_t) {
                expected += weight[key_t] * values[(first_row + key_t) * d + k];
            }
            expected /= sum;
            const float actual = context[row * d + k];
            if (!(std::fabs(actual - expected) <= tolerance)) {
                ++mismatches;
                ADD_FAILURE() << "context[row " << row << " (t = " << t << "), " << k
                              << "] = " << actual << ", expected " << expected << " (tolerance "
                              << tolerance << ")";
            }
        }
    }
    for (std::int64_t i = size; i < static_cast<std::int64_t>(context.size()); ++i) {
        ASSERT_TRUE(std::isnan(context[i]))
            << "a row past T wrote into the guard after the context, at " << i - size;
    }
}

TEST(FastAttentionEmulationTest, TiledKernelMatchesReferenceHeadDim32) {
    for (const Case& c : {Case{1, 1, 32, 1}, Case{1, 63, 32, 1}, Case{2, 97, 32, 3}}) {
        expect_matches_reference(c);
    }
}

TEST(FastAttentionEmulationTest, TiledKernelMatchesReferenceHeadDim64) {
    for (const Case& c :
         {Case{2, 5, 64, 1}, Case{3, 64, 64, 1}, Case{2, 130, 64, 2}, Case{1, 129, 64, 0.5f}}) {
        expect_matches_reference(c);
    }
}

TEST(FastAttentionEmulationTest, TiledKernelMatchesReferenceHeadDim128) {
    // 32-key tiles at head_dim 128: T = 65 ends one row into a tile and into a query tile.
    for (const Case& c : {Case{1, 65, 128, 1}, Case{2, 33, 128, 4}, Case{1, 100, 128, 1}}) {
        expect_matches_reference(c);
    }
}

TEST(FastAttentionEmulationTest, GenericKernelMatchesReferenceAnyHeadDim) {
    for (const Case& c : {Case{1, 70, 48, 1}, Case{2, 9, 7, 2}, Case{1, 1, 1, 1}}) {
        expect_matches_reference(c);
    }
    expect_matches_reference(Case{2, 40, 64, 1}, /*generic=*/true);
}

}  // namespace
