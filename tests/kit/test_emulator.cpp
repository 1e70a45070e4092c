// tests/kit/test_emulator.cpp — the kit's CUDA emulator (kit/emu.hpp) runs a tiled kernel as a
// GPU would, and names each way of breaking the GPU's rules, with the lines, on every run.
#include "attn/gpu/kernel.hpp"

#include <gmock/gmock.h>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

namespace {

using attn::gpu::global;
using attn::gpu::kernel_error;
using ::testing::HasSubstr;

constexpr int tile_rows = 8;

// The slips a student makes in a tiled loop, chosen by the kernel's last argument.
enum slip : int {
    none,
    no_sync_after_load,
    no_sync_before_next_load,
    returned_early,  // threads past n return before the barriers
    unguarded_load,  // the last, partial tile loaded past the end of data
    unguarded_read,  // the last tile read in full, rows never loaded included
    one_output,      // every thread writes out[0]
    row_past_tile,   // tile[tile_rows]
};

// out[i] = the sum of data[0, n), by tiles of data loaded into shared memory: each thread
// loads one row of a tile, then every thread reads the whole tile.
__global__ void tile_sums(global<const float> data, global<float> out, int n, int chosen) {
    ATTN_SHARED(float, tile, tile_rows, 1);
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (chosen == returned_early && i >= n) return;
    float total = 0;
    for (int start = 0; start < n; start += tile_rows) {
        const int j = start + static_cast<int>(threadIdx.x);
        const int row = chosen == row_past_tile ? tile_rows : static_cast<int>(threadIdx.x);
        if (chosen == unguarded_load || j < n) tile[row][0] = data[j];  // LOAD
        if (chosen != no_sync_after_load) __syncthreads();              // SYNC AFTER LOAD
        const int rows = chosen == unguarded_read ? tile_rows : std::min(tile_rows, n - start);
        for (int r = 0; r < rows; ++r) total += tile[r][0];       // READ
        if (chosen != no_sync_before_next_load) __syncthreads();  // SYNC BEFORE NEXT
    }
    if (i < n) out[chosen == one_output ? 0 : i] = total;  // WRITE
}

// The line of this file that holds `marker`.
int line_of(const std::string& marker) {
    std::ifstream source(ATTN_SOURCE_DIR "/tests/kit/test_emulator.cpp");
    int number = 0;
    for (std::string line; std::getline(source, line);) {
        ++number;
        if (line.find("// " + marker) != std::string::npos) return number;
    }
    return 0;
}

std::string at(const std::string& marker) { return "at line " + std::to_string(line_of(marker)); }

struct run_result {
    std::vector<float> out;
    std::string finding;  // "" or the kernel_error's id
    std::string text;
};

run_result run_tile_sums(int n, slip chosen) {
    std::vector<float> data(static_cast<std::size_t>(n));
    std::iota(data.begin(), data.end(), 1.0f);
    run_result result{std::vector<float>(static_cast<std::size_t>(n)), "", ""};
    const unsigned blocks = static_cast<unsigned>((n + tile_rows - 1) / tile_rows);
    try {
        attn::gpu::launch(tile_sums, dim3(blocks), dim3(tile_rows),
                          attn::gpu::global_view(data.data(), data.size(), "data"),
                          attn::gpu::global_view(result.out.data(), result.out.size(), "out"), n,
                          static_cast<int>(chosen));
    } catch (const kernel_error& error) {
        result.finding = error.id();
        result.text = error.what();
    }
    return result;
}

TEST(EmulatorTest, ATiledKernelWithItsBarriersRunsAsOnAGpu) {
    const run_result result = run_tile_sums(13, none);  // a partial last tile of 5 rows
    EXPECT_EQ(result.finding, "") << result.text;
    EXPECT_THAT(result.out, ::testing::Each(91.0f));  // 1 + 2 + ... + 13
    const auto& report = attn::kit::emu::last_launch();
    EXPECT_EQ(report.global_bytes_read, 2u * 13u * 4u);  // each block reads data once
    EXPECT_EQ(report.global_bytes_written, 13u * 4u);
    EXPECT_EQ(report.barriers, 2u * 4u);  // 2 blocks, 2 tiles each, 2 barriers a tile
}

TEST(EmulatorTest, AReadOfATileBeforeItsBarrierIsARaceReadAfterWrite) {
    for (int run = 0; run < 3; ++run) {  // the same finding on every run
        const run_result result = run_tile_sums(13, no_sync_after_load);
        EXPECT_EQ(result.finding, "shared_race_raw");
        EXPECT_THAT(result.text, HasSubstr("(read-after-write): thread "));
        EXPECT_THAT(result.text, HasSubstr("read tile["));
        EXPECT_THAT(result.text, HasSubstr(at("READ") + ", which thread "));
        EXPECT_THAT(result.text, HasSubstr("wrote " + at("LOAD")));
        EXPECT_THAT(result.text, HasSubstr("sync after loading the tile"));
    }
}

TEST(EmulatorTest, TheNextTileLoadedWhileRowsStillReadThisOneIsAWriteAfterRead) {
    const run_result result = run_tile_sums(21, no_sync_before_next_load);
    EXPECT_EQ(result.finding, "shared_race_war");
    EXPECT_THAT(result.text, HasSubstr("(write-after-read): thread "));
    EXPECT_THAT(result.text, HasSubstr(at("LOAD") + " while thread "));
    EXPECT_THAT(result.text, HasSubstr("still read it " + at("READ")));
    EXPECT_THAT(result.text, HasSubstr("before loading the next one"));
}

TEST(EmulatorTest, ABarrierSomeThreadsNeverReachIsNamedNotAHang) {
    const run_result result = run_tile_sums(13, returned_early);
    EXPECT_EQ(result.finding, "divergent_barrier");
    EXPECT_THAT(result.text, HasSubstr("a divergent barrier: in block 1, threads 0..4 wait at "
                                       "__syncthreads() " +
                                       at("SYNC AFTER LOAD") +
                                       ", while threads 5..7 returned without reaching it"));
}

TEST(EmulatorTest, TheLastPartialTileLoadedPastTheEndIsOutOfBounds) {
    const run_result result = run_tile_sums(13, unguarded_load);
    EXPECT_EQ(result.finding, "out_of_bounds");
    EXPECT_THAT(result.text, HasSubstr("read data[13] " + at("LOAD") +
                                       ": out of bounds (data has 13 elements: 0..12)"));
}

TEST(EmulatorTest, RowsOfAPartialTileNoThreadLoadedAreNamedWhenRead) {
    const run_result result = run_tile_sums(5, unguarded_read);  // one tile, rows 5..7 unloaded
    EXPECT_EQ(result.finding, "uninitialised_shared_read");
    EXPECT_THAT(result.text, HasSubstr("read tile[5][0] " + at("READ") +
                                       ", which no thread of its block wrote"));
}

TEST(EmulatorTest, TwoThreadsWritingOneOutputElementAreNamed) {
    const run_result result = run_tile_sums(13, one_output);
    EXPECT_EQ(result.finding, "output_written_twice");
    EXPECT_THAT(result.text, HasSubstr("two threads wrote out[0]"));
}

TEST(EmulatorTest, ASharedIndexPastItsRowsStopsTheKernel) {
    const run_result result = run_tile_sums(13, row_past_tile);
    EXPECT_EQ(result.finding, "out_of_bounds");
    EXPECT_THAT(result.text,
                HasSubstr("indexed tile[8] " + at("LOAD") + ": out of bounds (8 rows: 0..7)"));
}

// 32 threads each read row t of a shared matrix, column 0: with 32 floats a row every row
// starts in bank 0 (a 32-way conflict); one float of padding puts row t in bank t.
__global__ void first_column(global<float> out, int padded) {
    ATTN_SHARED(float, square, 32, 32);
    ATTN_SHARED(float, padded_rows, 32, 33);
    const int t = static_cast<int>(threadIdx.x);
    if (padded != 0) {
        padded_rows[t][0] = static_cast<float>(t);
        __syncthreads();
        out[t] = padded_rows[t][0];
    } else {
        square[t][0] = static_cast<float>(t);
        __syncthreads();
        out[t] = square[t][0];
    }
}

TEST(EmulatorTest, BankConflictsAreCountedPerWarpRequest) {
    std::vector<float> out(32);
    for (const int padded : {0, 1}) {
        attn::gpu::launch(first_column, dim3(1), dim3(32),
                          attn::gpu::global_view(out.data(), out.size(), "out"), padded);
        const auto& report = attn::kit::emu::last_launch();
        EXPECT_EQ(report.shared_requests, 2u);  // one write, one read
        EXPECT_EQ(report.shared_wavefronts, padded != 0 ? 2u : 64u);
        EXPECT_EQ(out[31], 31.0f);
    }
}

__global__ void throws(global<float> out) {
    if (threadIdx.x == 1) throw std::out_of_range("vector::at");
    out[threadIdx.x] = 1;
}

TEST(EmulatorTest, AnExceptionInAThreadIsNamedAndEndsTheLaunch) {
    std::vector<float> out(4);
    try {
        attn::gpu::launch(throws, dim3(1), dim3(4),
                          attn::gpu::global_view(out.data(), out.size(), "out"));
        FAIL() << "no kernel_error";
    } catch (const kernel_error& error) {
        EXPECT_EQ(error.id(), "threw");
        EXPECT_THAT(error.what(), HasSubstr("thread 1 of block 0 threw: vector::at"));
    }
}

// A thread's locals past its stack: a crash, as on a GPU, never a write over other memory.
__global__ void huge_locals(global<float> out) {
    volatile float scratch[1 << 20];  // 4 MiB: a GPU thread's stack is a few KiB
    for (int i = 0; i < (1 << 20); i += 1024) scratch[i] = static_cast<float>(i);
    out[threadIdx.x] = scratch[1024];
}

TEST(EmulatorDeathTest, AThreadWhoseLocalsOutgrowItsStackCrashes) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");  // OpenBLAS's threads are running
    std::vector<float> out(2);
    EXPECT_DEATH(attn::gpu::launch(huge_locals, dim3(1), dim3(2),
                                   attn::gpu::global_view(out.data(), out.size(), "out")),
                 "");
}

TEST(EmulatorTest, ALaunchOfNoThreadsOrTooManyIsRefused) {
    std::vector<float> out(4);
    for (const dim3 block : {dim3(0), dim3(2048)}) {
        try {
            attn::gpu::launch(throws, dim3(1), block,
                              attn::gpu::global_view(out.data(), out.size(), "out"));
            FAIL() << "no kernel_error";
        } catch (const kernel_error& error) {
            EXPECT_EQ(error.id(), "launch_configuration");
        }
    }
}

}  // namespace
