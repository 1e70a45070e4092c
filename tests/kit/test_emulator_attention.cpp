// tests/kit/test_emulator_attention.cpp — FlashAttention's tiled forward (causal, online
// softmax) on the kit's CUDA emulator: right where it keeps the GPU's rules, and each slip a
// student makes in it named, or measured where it is only slow.
#include "attn/fused_attention.hpp"
#include "attn/gpu/kernel.hpp"

#include <gmock/gmock.h>

#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace {

using attn::gpu::global;
using attn::gpu::HeadsShape;
using attn::gpu::kernel_error;
using ::testing::HasSubstr;

constexpr int tile_rows = 16;     // query rows a block, keys a tile
constexpr int max_head_dim = 16;  // columns of a tile; head_dim may be less

enum slip : int {
    none,
    no_sync_after_load,
    no_sync_before_next_load,
    sync_inside_branch,      // the barriers inside `if (t < T)`
    tile_row_off_by_one,     // key_tile[j - start + 1]
    partial_tile_unguarded,  // the last tile loaded without `j < T`
    every_tile_loaded,       // the tiles above the diagonal not skipped: right, but slow
    no_rescale,              // acc and l not multiplied by exp(m_old - m_new)
};

// One block: tile_rows query rows of one (b, h), a thread each. For each tile of keys at or
// below the block's last row: load the tile's keys and values into shared memory, a row a
// thread; sync; every row scores the keys it may see and updates its online softmax; sync.
template <int Columns>
__global__ void tiled_attention(global<const float> queries, global<const float> keys,
                                global<const float> values, global<float> context, HeadsShape shape,
                                float scale, int chosen) {
    ATTN_SHARED(float, key_tile, tile_rows, Columns);
    ATTN_SHARED(float, value_tile, tile_rows, Columns);
    const int T = static_cast<int>(shape.tokens), D = static_cast<int>(shape.head_dim);
    const std::int64_t first = static_cast<std::int64_t>(blockIdx.y) * T * D;  // its (b, h)
    const int t = static_cast<int>(blockIdx.x) * tile_rows + static_cast<int>(threadIdx.x);
    float query[max_head_dim], acc[max_head_dim];
    for (int d = 0; d < D; ++d) {
        query[d] = t < T ? queries[first + std::int64_t{t} * D + d] : 0.0f;
        acc[d] = 0.0f;
    }
    float running_max = -INFINITY, running_sum = 0.0f;
    const int block_last = std::min(T - 1, static_cast<int>(blockIdx.x + 1) * tile_rows - 1);
    const int keys_end = chosen == every_tile_loaded ? T : block_last + 1;
    if (chosen == sync_inside_branch && t >= T) return;
    for (int start = 0; start < keys_end; start += tile_rows) {
        const int j = start + static_cast<int>(threadIdx.x);
        if (chosen == partial_tile_unguarded || j < T) {
            for (int d = 0; d < D; ++d) {
                key_tile[threadIdx.x][d] = keys[first + std::int64_t{j} * D + d];  // LOAD
                value_tile[threadIdx.x][d] = values[first + std::int64_t{j} * D + d];
            }
        }
        if (chosen != no_sync_after_load) __syncthreads();  // SYNC AFTER LOAD
        const int end = std::min(start + tile_rows, t + 1);
        for (int k = start; t < T && k < end; ++k) {
            const int row = k - start + (chosen == tile_row_off_by_one ? 1 : 0);
            float score = 0.0f;
            for (int d = 0; d < D; ++d) score += query[d] * key_tile[row][d];  // SCORE
            score *= scale;
            const float new_max = fmaxf(running_max, score);
            const float correction = chosen == no_rescale ? 1.0f : expf(running_max - new_max);
            const float weight = expf(score - new_max);
            running_sum = running_sum * correction + weight;
            for (int d = 0; d < D; ++d) acc[d] = acc[d] * correction + weight * value_tile[row][d];
            running_max = new_max;
        }
        if (chosen != no_sync_before_next_load) __syncthreads();
    }
    for (int d = 0; t < T && d < D; ++d)
        context[first + std::int64_t{t} * D + d] = acc[d] / running_sum;
}

struct attention_case {
    HeadsShape shape;
    std::vector<float> queries, keys, values;
};

attention_case random_case(std::int64_t batch, std::int64_t heads, std::int64_t tokens,
                           std::int64_t head_dim) {
    attention_case made{{batch, heads, tokens, head_dim}, {}, {}, {}};
    std::mt19937 generator(7);
    std::normal_distribution<float> normal;
    const auto count = static_cast<std::size_t>(batch * heads * tokens * head_dim);
    for (auto* values : {&made.queries, &made.keys, &made.values}) {
        values->resize(count);
        for (auto& value : *values) value = normal(generator);
    }
    return made;
}

// Causal attention the plain way, in double: the answer a kernel must give.
std::vector<float> reference(const attention_case& given) {
    const auto& s = given.shape;
    std::vector<float> out(given.queries.size());
    for (std::int64_t bh = 0; bh < s.batch * s.heads; ++bh) {
        const std::int64_t first = bh * s.tokens * s.head_dim;
        for (std::int64_t t = 0; t < s.tokens; ++t) {
            std::vector<double> scores;
            for (std::int64_t j = 0; j <= t; ++j) {
                double dot = 0;
                for (std::int64_t d = 0; d < s.head_dim; ++d)
                    dot += double{given.queries[first + t * s.head_dim + d]} *
                           given.keys[first + j * s.head_dim + d];
                scores.push_back(dot / std::sqrt(static_cast<double>(s.head_dim)));
            }
            const double top = *std::max_element(scores.begin(), scores.end());
            double total = 0;
            for (auto& score : scores) total += score = std::exp(score - top);
            for (std::int64_t d = 0; d < s.head_dim; ++d) {
                double sum = 0;
                for (std::int64_t j = 0; j <= t; ++j)
                    sum += scores[j] * given.values[first + j * s.head_dim + d];
                out[first + t * s.head_dim + d] = static_cast<float>(sum / total);
            }
        }
    }
    return out;
}

struct outcome {
    std::vector<float> context;
    std::string finding, text;
    attn::kit::emu::launch_report report;
};

template <int Columns = max_head_dim + 1>
outcome run(const attention_case& given, slip chosen) {
    const auto& s = given.shape;
    outcome result{std::vector<float>(given.queries.size()), "", "", {}};
    const auto n = given.queries.size();
    try {
        attn::gpu::launch(
            tiled_attention<Columns>,
            dim3(static_cast<unsigned>((s.tokens + tile_rows - 1) / tile_rows),
                 static_cast<unsigned>(s.batch * s.heads)),
            dim3(tile_rows), attn::gpu::global_view(given.queries.data(), n, "queries"),
            attn::gpu::global_view(given.keys.data(), n, "keys"),
            attn::gpu::global_view(given.values.data(), n, "values"),
            attn::gpu::global_view(result.context.data(), n, "context"), s,
            1.0f / std::sqrt(static_cast<float>(s.head_dim)), static_cast<int>(chosen));
    } catch (const kernel_error& error) {
        result.finding = error.id();
        result.text = error.what();
    }
    result.report = attn::kit::emu::last_launch();
    return result;
}

float worst_difference(const std::vector<float>& a, const std::vector<float>& b) {
    float worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
    return worst;
}

// T = 37: three tiles, the last partial (5 rows); two heads, two sequences.
const attention_case odd = random_case(2, 2, 37, 8);

TEST(EmulatedAttentionTest, TheTiledKernelKeepsTheRulesAndIsRight) {
    const auto started = std::chrono::steady_clock::now();
    const outcome result = run(odd, none);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    EXPECT_EQ(result.finding, "") << result.text;
    EXPECT_LT(worst_difference(result.context, reference(odd)), 1e-5f);
    // Q and O once; K and V once for each block at or below the diagonal of its (b, h).
    const std::uint64_t values = 2 * 2 * 37 * 8, bytes = 4;
    EXPECT_EQ(result.report.global_bytes_read,
              values * bytes + 2 * values * bytes / 37 * (16 + 32 + 37));
    EXPECT_EQ(result.report.global_bytes_written, values * bytes);
    // padded rows: a warp's loads fall in distinct banks, its reads of one row broadcast
    EXPECT_EQ(result.report.shared_wavefronts, result.report.shared_requests);
    std::cout << "the emulator ran B=2, heads=2, T=37, head_dim=8 in " << seconds * 1000 << " ms\n";
}

TEST(EmulatedAttentionTest, EachSlipOfTheBarriersAndTheTilesIsNamedOnEveryRun) {
    const std::vector<std::pair<slip, std::string>> named = {
        {no_sync_after_load, "shared_race_raw"},
        {no_sync_before_next_load, "shared_race_war"},
        {sync_inside_branch, "divergent_barrier"},
        {tile_row_off_by_one, "out_of_bounds"},  // the last row of a full tile: key_tile[16]
        {partial_tile_unguarded, "out_of_bounds"},
    };
    for (const auto& [chosen, id] : named) {
        for (int run_number = 0; run_number < 3; ++run_number) {
            const outcome result = run(odd, chosen);
            EXPECT_EQ(result.finding, id) << "slip " << chosen << ": " << result.text;
        }
    }
    EXPECT_THAT(run(odd, tile_row_off_by_one).text, HasSubstr("indexed key_tile[16] at line "));
    // Past T, a partial tile's rows are the next (b, h)'s keys, in bounds and never scored;
    // the last (b, h)'s run past the array's end.
    EXPECT_THAT(run(odd, partial_tile_unguarded).text,
                HasSubstr("thread 5 of block (2, 3) read keys[1184] at line "));
    EXPECT_THAT(run(odd, partial_tile_unguarded).text,
                HasSubstr("out of bounds (keys has 1184 elements: 0..1183)"));
}

TEST(EmulatedAttentionTest, TheRescaleForgottenIsWrongThoughItBreaksNoRule) {
    const outcome result = run(odd, no_rescale);
    EXPECT_EQ(result.finding, "");
    EXPECT_GT(worst_difference(result.context, reference(odd)), 1e-2f);
}

TEST(EmulatedAttentionTest, TilesAboveTheDiagonalAreRightButReadTwiceTheKeys) {
    const outcome skipped = run(odd, none), every = run(odd, every_tile_loaded);
    EXPECT_EQ(every.finding, "");
    EXPECT_LT(worst_difference(every.context, reference(odd)), 1e-5f);
    EXPECT_GT(every.report.global_bytes_read, skipped.report.global_bytes_read);
}

TEST(EmulatedAttentionTest, RowsOfAPowerOfTwoFloatsConflictOnLoad) {
    const outcome padded = run(odd, none), square = run<max_head_dim>(odd, none);
    EXPECT_EQ(square.finding, "");
    // 16 threads load column d of 16 rows of 16 floats: words 16 * i + d, two banks, 8 ways
    EXPECT_GT(square.report.shared_wavefronts, padded.report.shared_wavefronts);
}

}  // namespace
