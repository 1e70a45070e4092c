// kit/emu/src/tiled_attention_notes.cpp — what a GPU's profiler would say of exercise 24's
// kernel (kit/emu.hpp, tiled_attention_notes).
#include "attn/tiled_attention.hpp"
#include "kit/emu.hpp"

#include <sstream>

namespace attn::kit::emu {

namespace {

std::string kilobytes(std::uint64_t bytes) {
    std::ostringstream text;
    text.precision(3);
    text << static_cast<double>(bytes) / 1024.0 << " KB";
    return text.str();
}

}  // namespace

std::vector<std::string> tiled_attention_notes(const gpu::HeadsShape& shape) {
    const launch_report& launched = last_launch();
    const std::uint64_t row_bytes = static_cast<std::uint64_t>(shape.head_dim) * sizeof(float);
    const auto pairs = static_cast<std::uint64_t>(shape.batch * shape.heads);
    const auto T = static_cast<std::uint64_t>(shape.tokens);
    constexpr auto tile = static_cast<std::uint64_t>(gpu::tile_size);
    // Q once; K and V once for each block, the tiles up to its last row.
    std::uint64_t key_rows = 0;
    for (std::uint64_t last = tile; last < T + tile; last += tile) key_rows += last < T ? last : T;
    const std::uint64_t needed = pairs * row_bytes * (T + 2 * key_rows);
    std::vector<std::string> notes;
    // A tenth more is worth a sentence; a row or two of a short sequence's partial tile is not.
    if (launched.global_bytes_read * 10 > needed * 11) {
        notes.push_back(
            "your kernel read " + kilobytes(launched.global_bytes_read) +
            " of global memory where one that skips the tiles above the diagonal reads " +
            kilobytes(needed) + " (Q, K and V once would be " +
            kilobytes(3 * pairs * row_bytes * T) +
            "): a block needs the tiles up to its last row only, the rest are masked out");
    }
    if (launched.shared_wavefronts > launched.shared_requests) {
        std::ostringstream ways;
        ways.precision(3);
        ways << static_cast<double>(launched.shared_wavefronts) /
                    static_cast<double>(launched.shared_requests);
        notes.push_back(
            "shared-memory bank conflicts: " + std::to_string(launched.shared_requests) +
            " warp accesses took " + std::to_string(launched.shared_wavefronts) +
            " turns of the 32 banks, " + ways.str() +
            "-way on average: threads of a warp touching words of one bank wait for each other "
            "(keep tile rows tile_columns = max_head_dim + 1 floats long, so that column d of "
            "32 rows falls in 32 banks)");
    }
    return notes;
}

}  // namespace attn::kit::emu
