// kit/emu.hpp — the kit's CUDA emulator: a kernel written for nvcc, compiled by g++, run on
// the CPU with every shared-memory and global-memory access checked.
//
// A student's kernel (include/attn/gpu/kernel.hpp is what it includes) runs here as on a GPU
// in what it may assume, and no further: blocks one after another, the threads of a block
// concurrently, each a fiber (ucontext) with its own stack, so its local variables are its
// own. __syncthreads() is a real barrier: a thread that reaches one waits there until every
// thread of its block has. Between two barriers the threads run one after another, thread 0
// first; a kernel whose result depends on that order has a race, and the checks below name
// it whatever the order, on every run:
//   - a shared-memory race: two threads touch one element between the same two barriers and
//     one of them writes. Read-after-write (a thread reads what another wrote since the last
//     barrier: sync after loading the tile) and write-after-read (a thread overwrites what
//     another read since the last barrier: sync before loading the next tile) are told apart
//     by the order of the two lines in the threads' own code, not by the emulator's order;
//   - a divergent barrier: threads of a block wait at different __syncthreads(), or some
//     wait while others returned (a sync inside `if (row < T)`). Named, never a hang;
//   - an index out of bounds, of a shared array or a global pointer, with the bound;
//   - a read of a shared element no thread of the block wrote;
//   - two threads writing one element of an output.
// Each finding names the array and element, the threads (threadIdx, blockIdx) and the lines
// of the student's file (every access records the line its index was written on: `at`).
// It also measures what a GPU's profiler would: global bytes read and written, and the
// shared-memory bank conflicts of each warp's access (32 banks of 4 bytes; a request
// served in N wavefronts is an N-way conflict).
#pragma once

#include "attn/fused_attention.hpp"  // attn::gpu::HeadsShape
#include "kit/kernel_error.hpp"      // attn::gpu::kernel_error, what run() throws

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// CUDA's dim3: a grid's or a block's size, and an index into them.
struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

namespace attn::kit::emu {

// An index as the kernel wrote it, with the line it was written on: tile[i][j] becomes
// tile[at(i, line)][at(j, line)] by C++'s implicit conversion, so every access knows its line.
struct at {
    std::int64_t index;
    int line;
    at(std::int64_t index_, int line_ = __builtin_LINE()) : index(index_), line(line_) {}
};

// Where the running emulated thread is, as CUDA's built-in variables say it.
struct thread_place {
    dim3 thread, block, block_dim, grid_dim;
};
const thread_place& here();

// The barrier (__syncthreads() at `line`).
void sync_threads(int line);

// The memory an array of the kernel occupies, with its shadow (emu.cpp).
class region;

// Records an access of element `flat` of `memory`. Out of bounds, the finding is recorded and
// the launch stops (the access is never made).
void record(region& memory, std::int64_t flat, bool write, int line);

// One element of shared or global memory, read where it is converted to T, written where it
// is assigned to. Only where it is indexed: `auto x = tile[i][j];` keeps the element, not its
// value (CUDA's copy), so a later `x = 1` would write shared memory; the assignments of a
// named element do not compile (`float x = tile[i][j];` is the CUDA way).
template <class T>
class element {
public:
    element(region& memory, T* value, std::int64_t flat, int line)
        : memory_(&memory), value_(value), flat_(flat), line_(line) {}

    operator T() const {  // NOLINT(google-explicit-constructor): reads as a float does
        record(*memory_, flat_, false, line_);
        return *value_;
    }
    element& operator=(T value) && {
        record(*memory_, flat_, true, line_);
        *value_ = value;
        return *this;
    }
    element& operator=(const element& other) && { return std::move(*this) = static_cast<T>(other); }
    element& operator+=(T value) && { return std::move(*this) = static_cast<T>(*this) + value; }
    element& operator-=(T value) && { return std::move(*this) = static_cast<T>(*this) - value; }
    element& operator*=(T value) && { return std::move(*this) = static_cast<T>(*this) * value; }
    element& operator/=(T value) && { return std::move(*this) = static_cast<T>(*this) / value; }

private:
    region* memory_;
    T* value_;
    std::int64_t flat_;
    int line_;
};

// The block's storage of a shared array named `name` of `count` elements of `size` bytes,
// allocated when the block's first thread declares it (and checked against its declaration).
void* shared_storage(const char* name, std::size_t size, std::int64_t rows, std::int64_t cols,
                     region** memory);
// Checks a shared array's index where it is written, the row first ("tile[16][...]"): out of
// bounds, as record().
void check_bounds(region& memory, std::int64_t row, std::int64_t column, int line);

// A __shared__ T name[Rows][Cols], one per block (ATTN_SHARED, attn/gpu/kernel.hpp).
template <class T, std::int64_t Rows, std::int64_t Cols>
class shared_array {
    static_assert(std::is_arithmetic_v<T>, "shared arrays hold numbers");

public:
    explicit shared_array(const char* name)
        : values_(static_cast<T*>(shared_storage(name, sizeof(T), Rows, Cols, &memory_))) {}

    class row {
    public:
        row(region& memory, T* values, std::int64_t index)
            : memory_(memory), values_(values), index_(index) {}
        element<T> operator[](at column) const {
            check_bounds(memory_, index_, column.index, column.line);
            return {memory_, values_ + index_ * Cols + column.index, index_ * Cols + column.index,
                    column.line};
        }

    private:
        region& memory_;
        T* values_;
        std::int64_t index_;
    };

    row operator[](at row_index) const {
        check_bounds(*memory_, row_index.index, 0, row_index.line);
        return {*memory_, values_, row_index.index};
    }

private:
    region* memory_ = nullptr;
    T* values_;
};

// Registers `count` elements at `data` as the global array `name` of the next launch.
std::shared_ptr<region> global_region(const char* name, void* data, std::size_t count,
                                      std::size_t size, bool writable);

// A pointer into global memory, as a kernel's parameter (attn::gpu::global<T>): indexing it
// reads or writes one element, checked; `+ offset` moves it, as a pointer moves.
template <class T>
class global_ptr {
    using value_type = std::remove_const_t<T>;

public:
    global_ptr(std::shared_ptr<region> memory, T* base, std::int64_t offset)
        : memory_(std::move(memory)), base_(base), offset_(offset) {}
    // float* to const float*, as a pointer converts.
    template <class U,
              class = std::enable_if_t<std::is_same_v<const U, T> && !std::is_same_v<U, T>>>
    global_ptr(const global_ptr<U>& other)  // NOLINT(google-explicit-constructor)
        : memory_(other.memory_), base_(other.base_), offset_(other.offset_) {}

    auto operator[](at index) const {
        const std::int64_t flat = offset_ + index.index;
        if constexpr (std::is_const_v<T>) {
            record(*memory_, flat, false, index.line);
            return base_[flat];
        } else {
            return element<T>(*memory_, base_ + flat, flat, index.line);
        }
    }
    global_ptr operator+(std::int64_t offset) const { return {memory_, base_, offset_ + offset}; }
    global_ptr& operator+=(std::int64_t offset) {
        offset_ += offset;
        return *this;
    }

private:
    template <class>
    friend class global_ptr;
    std::shared_ptr<region> memory_;
    T* base_;
    std::int64_t offset_;
};

// What the last launch found and measured.
struct finding {
    std::string id;  // "shared_race_raw", "shared_race_war", "shared_race_write_write",
                     // "divergent_barrier", "out_of_bounds", "uninitialised_shared_read",
                     // "output_written_twice"
    std::string text;
};
struct launch_report {
    // The first of each id, a race first, then a divergent barrier, an index out of bounds, a
    // write of an input, an exception, a read of an element never written, an output written
    // twice: the root cause first.
    std::vector<finding> findings;
    std::uint64_t global_bytes_read = 0;
    std::uint64_t global_bytes_written = 0;
    std::uint64_t shared_requests = 0;    // warp-wide accesses of shared memory
    std::uint64_t shared_wavefronts = 0;  // what they cost: requests × the conflicts' ways
    std::uint64_t barriers = 0;           // barrier intervals run, all blocks
};
const launch_report& last_launch();

// What a GPU's profiler would say of the last launch, if it was exercise 24's tiled kernel
// (attn/tiled_attention.hpp) on `shape`, where it is slower than it needs to be: global
// memory read beyond what a kernel that skips the tiles above the diagonal reads (a tenth
// more), shared-memory bank conflicts. Sentences for kit::note_performance; none where the
// kernel does as well as the kit's solution.
std::vector<std::string> tiled_attention_notes(const gpu::HeadsShape& shape);

// Runs `body` (the kernel with its arguments bound) on a grid of blocks of threads, checking
// it; throws attn::gpu::kernel_error naming the first finding, if any.
void run(const dim3& grid, const dim3& block, const std::function<void()>& body);

}  // namespace attn::kit::emu
