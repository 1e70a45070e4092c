// kit/emu/src/emu.cpp — the kit's CUDA emulator (kit/emu.hpp): fibers, barriers, shadow
// memory and what they find.
#include "kit/emu.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <sys/mman.h>
#include <tuple>
#include <ucontext.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define ATTN_EMU_ASAN 1
#endif

namespace attn::kit::emu {

// An access's thread (its linear index in the block, -1: none) and line.
struct mark {
    int thread = -1;
    int line = 0;
};

class region {
public:
    std::string name;
    bool shared = false;
    bool writable = true;
    std::int64_t rows = 0, columns = 1, count = 0;
    std::size_t element_size = 4;
    std::uint64_t first_word = 0;  // shared: its first 4-byte word in the block's shared memory
    std::unique_ptr<unsigned char[]> storage;  // shared: the block's copy

    // Per element: shared memory's accesses in the current barrier interval (epoch) and whether
    // any thread of the block wrote it; global memory's writer over the whole launch.
    struct shadow {
        std::uint64_t write_epoch = 0, read_epoch = 0;  // epochs start at 1
        mark writer, reader, other_reader;  // two readers: one differs from any later writer
        bool written = false;
        std::int64_t launch_writer = -1;  // global: the writing thread, over all blocks
        int launch_write_line = 0;
    };
    std::vector<shadow> marks;
    std::uint64_t bytes_read = 0, bytes_written = 0;

    std::string element_name(std::int64_t flat) const {
        if (!shared) return name + "[" + std::to_string(flat) + "]";
        return name + "[" + std::to_string(flat / columns) + "][" + std::to_string(flat % columns) +
               "]";
    }
};

namespace {

// Thrown inside a fiber to end its thread: the launch stopped (a finding it cannot go on
// after, such as an index out of bounds).
struct thread_stopped {};

#if defined(ATTN_EMU_ASAN)
constexpr std::size_t stack_size = 512 * 1024;
#else
constexpr std::size_t stack_size = 128 * 1024;
#endif

// A fiber's stack, with an inaccessible page below it: a thread whose locals outgrow it (a
// GPU thread's stack is small too) crashes there, rather than writing over the heap.
class fiber_stack {
public:
    fiber_stack() {
        const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        mapped_ = stack_size + page;
        memory_ =
            mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (memory_ == MAP_FAILED) throw std::bad_alloc();
        mprotect(memory_, page, PROT_NONE);
        bottom_ = static_cast<char*>(memory_) + page;
    }
    fiber_stack(const fiber_stack&) = delete;
    fiber_stack& operator=(const fiber_stack&) = delete;
    ~fiber_stack() { munmap(memory_, mapped_); }

    char* get() const { return bottom_; }

private:
    void* memory_ = nullptr;
    std::size_t mapped_ = 0;
    char* bottom_ = nullptr;
};

struct fiber {
    enum class state { ready, waiting, done };
    ucontext_t context{};
    std::unique_ptr<fiber_stack> stack;
    state now = state::ready;
    bool started = false;
    int barrier_line = 0;
    thread_place place;
    int linear = 0;
    std::int64_t launch_id = 0;  // its index among all the launch's threads
    // The lines of its shared-memory accesses in this interval: where each came first, and how
    // often (the n-th access at a line is one warp-wide request with the other threads' n-th).
    struct line_seen {
        int line, first, count;
    };
    std::vector<line_seen> lines;
    int accesses = 0;
#if defined(ATTN_EMU_ASAN)
    void* fake_stack = nullptr;
#endif
};

struct launch_state {
    dim3 grid, block;
    const std::function<void()>* body = nullptr;
    std::vector<fiber> fibers;
    ucontext_t scheduler{};
#if defined(ATTN_EMU_ASAN)
    const void* scheduler_bottom = nullptr;
    std::size_t scheduler_size = 0;
#endif
    int running = -1;
    dim3 block_index;
    std::uint64_t epoch = 0;
    std::vector<std::unique_ptr<region>> shared;  // the running block's
    std::uint64_t shared_words = 0;
    bool stopped = false;
    launch_report report;
    // A warp's n-th access at a line, this interval: the words it touched (bank conflicts).
    std::map<std::tuple<int, int, int>, std::vector<std::uint64_t>> warp_requests;

    fiber& current() { return fibers.at(static_cast<std::size_t>(running)); }
};

thread_local launch_state* active = nullptr;
thread_local std::vector<std::shared_ptr<region>> pending_globals;
thread_local launch_report last;

launch_state& launch() {
    if (active == nullptr || active->running < 0) {
        throw std::logic_error(
            "a kernel's built-in (threadIdx, __syncthreads(), a shared or "
            "global array) used outside a launch");
    }
    return *active;
}

std::string dim_text(const dim3& d, const dim3& size) {
    if (size.y == 1 && size.z == 1) return std::to_string(d.x);
    std::string text = "(" + std::to_string(d.x) + ", " + std::to_string(d.y);
    if (size.z != 1) text += ", " + std::to_string(d.z);
    return text + ")";
}

std::string thread_name(const launch_state& state, int linear) {
    const auto& place = state.fibers.at(static_cast<std::size_t>(linear)).place;
    return "thread " + dim_text(place.thread, place.block_dim) + " of block " +
           dim_text(place.block, place.grid_dim);
}

// "threads 0..9, 12" of the linear indices given, in the block's words.
std::string threads_text(const launch_state& state, const std::vector<int>& linear) {
    std::string text;
    for (std::size_t i = 0; i < linear.size();) {
        std::size_t j = i;
        while (j + 1 < linear.size() && linear[j + 1] == linear[j] + 1) ++j;
        const auto& first = state.fibers.at(static_cast<std::size_t>(linear[i])).place;
        const auto& last = state.fibers.at(static_cast<std::size_t>(linear[j])).place;
        text += (text.empty() ? "" : ", ") + dim_text(first.thread, first.block_dim) +
                (j > i ? ".." + dim_text(last.thread, last.block_dim) : "");
        i = j + 1;
    }
    return (linear.size() == 1 ? "thread " : "threads ") + text;
}

void add_finding(launch_state& state, const std::string& id, const std::string& text) {
    auto& findings = state.report.findings;
    const bool known = std::any_of(findings.begin(), findings.end(),
                                   [&](const finding& each) { return each.id == id; });
    // The kind of finding first, in the words a status line shows (kit/kernel_error.hpp).
    if (!known) findings.push_back({id, gpu::kernel_error::summary_of(id) + ": " + text});
}

// Records a finding the launch cannot go on after, and ends the running thread.
[[noreturn]] void stop(launch_state& state, const std::string& id, const std::string& text) {
    add_finding(state, id, text);
    state.stopped = true;
    throw thread_stopped{};
}

void switch_to_fiber(launch_state& state, fiber& next) {
#if defined(ATTN_EMU_ASAN)
    void* fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, next.stack->get(), stack_size);
    swapcontext(&state.scheduler, &next.context);
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#else
    swapcontext(&state.scheduler, &next.context);
#endif
}

void switch_to_scheduler(launch_state& state, fiber& self, bool ending) {
#if defined(ATTN_EMU_ASAN)
    __sanitizer_start_switch_fiber(ending ? nullptr : &self.fake_stack, state.scheduler_bottom,
                                   state.scheduler_size);
    swapcontext(&self.context, &state.scheduler);
    __sanitizer_finish_switch_fiber(self.fake_stack, &state.scheduler_bottom,
                                    &state.scheduler_size);
#else
    (void)ending;
    swapcontext(&self.context, &state.scheduler);
#endif
}

void fiber_main() {
    launch_state& state = *active;
    fiber& self = state.current();
#if defined(ATTN_EMU_ASAN)
    __sanitizer_finish_switch_fiber(nullptr, &state.scheduler_bottom, &state.scheduler_size);
#endif
    try {
        (*state.body)();
    } catch (const thread_stopped&) {
    } catch (const std::exception& error) {
        add_finding(state, "threw",
                    thread_name(state, self.linear) + " threw: " + std::string(error.what()));
        state.stopped = true;
    } catch (...) {
        add_finding(state, "threw", thread_name(state, self.linear) + " threw an exception");
        state.stopped = true;
    }
    self.now = fiber::state::done;
    switch_to_scheduler(state, self, true);
}

// The interval's warp-wide requests of shared memory: each served in as many wavefronts as the
// most distinct words any one bank holds among them (32 banks of 4 bytes).
void count_bank_conflicts(launch_state& state) {
    for (auto& [key, words] : state.warp_requests) {
        std::sort(words.begin(), words.end());
        words.erase(std::unique(words.begin(), words.end()), words.end());
        std::array<int, 32> per_bank{};
        for (const auto word : words) ++per_bank[word % 32];
        state.report.shared_requests += 1;
        state.report.shared_wavefronts +=
            static_cast<std::uint64_t>(*std::max_element(per_bank.begin(), per_bank.end()));
    }
    state.warp_requests.clear();
}

void new_interval(launch_state& state) {
    ++state.epoch;
    count_bank_conflicts(state);
    for (auto& each : state.fibers) {
        each.lines.clear();
        each.accesses = 0;
    }
}

// The threads of a block still waiting at a barrier when it cannot be released, or when the
// launch stopped: each resumed to end (sync_threads throws), so their frames unwind.
void end_waiting_threads(launch_state& state) {
    for (std::size_t i = 0; i < state.fibers.size(); ++i) {
        auto& each = state.fibers[i];
        if (!each.started || each.now == fiber::state::done) continue;
        state.running = static_cast<int>(i);
        switch_to_fiber(state, each);
    }
}

// Whether the block's barrier can be released: every thread waits at the same one. Else the
// divergent barrier is named.
bool barrier_agreed(launch_state& state) {
    std::map<int, std::vector<int>> waiting;  // line -> threads
    std::vector<int> returned;
    for (const auto& each : state.fibers) {
        if (each.now == fiber::state::done) {
            returned.push_back(each.linear);
        } else {
            waiting[each.barrier_line].push_back(each.linear);
        }
    }
    if (waiting.empty() || (returned.empty() && waiting.size() == 1)) return true;
    std::string text = "in block " + dim_text(state.block_index, state.grid) + ", ";
    std::string sep;
    for (const auto& [line, threads] : waiting) {
        text += sep + threads_text(state, threads) + " wait at __syncthreads() at line " +
                std::to_string(line);
        sep = ", ";
    }
    if (!returned.empty()) {
        text += ", while " + threads_text(state, returned) + " returned without reaching it";
    }
    text +=
        " (a __syncthreads() inside a branch that not every thread of the block takes, as "
        "`if (row < T)`: on a GPU a hang, or undefined behaviour)";
    add_finding(state, "divergent_barrier", text);
    return false;
}

void run_block(launch_state& state, const dim3& block_index) {
    state.block_index = block_index;
    state.shared.clear();
    state.shared_words = 0;
    const dim3 size = state.block;
    const std::int64_t block_linear =
        (static_cast<std::int64_t>(block_index.z) * state.grid.y + block_index.y) * state.grid.x +
        block_index.x;
    const int threads = static_cast<int>(size.x * size.y * size.z);
    for (int i = 0; i < threads; ++i) {
        auto& each = state.fibers[static_cast<std::size_t>(i)];
        const auto index = static_cast<unsigned>(i);
        each.place = {dim3(index % size.x, index / size.x % size.y, index / (size.x * size.y)),
                      block_index, size, state.grid};
        each.linear = i;
        each.launch_id = block_linear * threads + i;
        each.now = fiber::state::ready;
        each.started = false;
        getcontext(&each.context);
        each.context.uc_stack.ss_sp = each.stack->get();
        each.context.uc_stack.ss_size = stack_size;
        each.context.uc_link = nullptr;
        makecontext(&each.context, fiber_main, 0);
    }
    new_interval(state);
    for (;;) {
        for (int i = 0; i < threads && !state.stopped; ++i) {
            auto& each = state.fibers[static_cast<std::size_t>(i)];
            if (each.now != fiber::state::ready) continue;
            state.running = i;
            each.started = true;
            switch_to_fiber(state, each);
        }
        if (state.stopped) break;
        const bool all_done =
            std::all_of(state.fibers.begin(), state.fibers.begin() + threads,
                        [](const fiber& each) { return each.now == fiber::state::done; });
        if (all_done) break;
        if (!barrier_agreed(state)) {
            state.stopped = true;
            break;
        }
        new_interval(state);
        ++state.report.barriers;
        for (int i = 0; i < threads; ++i) {
            state.fibers[static_cast<std::size_t>(i)].now = fiber::state::ready;
        }
    }
    if (state.stopped) end_waiting_threads(state);
    count_bank_conflicts(state);
    state.running = -1;
}

// Whether, in thread `reader`'s own order this interval, line `write_line` came before its
// first access at `read_line`: then its code writes, then reads, in one interval
// (read-after-write); else it reads, then writes (write-after-read).
bool writes_before_reading(const fiber& reader, int write_line, int read_line) {
    int write_first = -1, read_first = -1;
    for (const auto& seen : reader.lines) {
        if (seen.line == write_line) write_first = seen.first;
        if (seen.line == read_line) read_first = seen.first;
    }
    return write_first >= 0 && (read_first < 0 || write_first < read_first);
}

void shared_race(launch_state& state, const region& memory, std::int64_t flat, mark reader,
                 mark writer) {
    const auto& reading = state.fibers.at(static_cast<std::size_t>(reader.thread));
    const std::string element = memory.element_name(flat);
    if (writes_before_reading(reading, writer.line, reader.line)) {
        add_finding(state, "shared_race_raw",
                    thread_name(state, reader.thread) + " read " + element + " at line " +
                        std::to_string(reader.line) + ", which " +
                        thread_name(state, writer.thread) + " wrote at line " +
                        std::to_string(writer.line) +
                        " with no __syncthreads() between them: sync after loading the tile, "
                        "before any thread reads it");
    } else {
        add_finding(state, "shared_race_war",
                    thread_name(state, writer.thread) + " wrote " + element + " at line " +
                        std::to_string(writer.line) + " while " +
                        thread_name(state, reader.thread) + " still read it at line " +
                        std::to_string(reader.line) +
                        ", with no __syncthreads() between them: sync after the last read of a "
                        "tile, before loading the next one");
    }
}

void record_shared(launch_state& state, region& memory, std::int64_t flat, bool write, int line) {
    fiber& self = state.current();
    auto seen = std::find_if(self.lines.begin(), self.lines.end(),
                             [&](const fiber::line_seen& each) { return each.line == line; });
    if (seen == self.lines.end()) {
        self.lines.push_back({line, self.accesses, 0});
        seen = self.lines.end() - 1;
    }
    const int occurrence = seen->count++;
    ++self.accesses;
    const auto byte = static_cast<std::uint64_t>(flat) * memory.element_size;
    state.warp_requests[{self.linear / 32, line, occurrence}].push_back(memory.first_word +
                                                                        byte / 4);

    auto& shadow = memory.marks[static_cast<std::size_t>(flat)];
    const mark me{self.linear, line};
    if (!write) {
        if (!shadow.written) {
            add_finding(state, "uninitialised_shared_read",
                        thread_name(state, self.linear) + " read " + memory.element_name(flat) +
                            " at line " + std::to_string(line) +
                            ", which no thread of its block wrote (a row past the last token "
                            "of a partial tile? load only rows that exist, and read only those)");
        }
        if (shadow.write_epoch == state.epoch && shadow.writer.thread != self.linear)
            shared_race(state, memory, flat, me, shadow.writer);
        if (shadow.read_epoch != state.epoch) {
            shadow.read_epoch = state.epoch;
            shadow.reader = me;
            shadow.other_reader = {};
        } else if (shadow.reader.thread != self.linear && shadow.other_reader.thread < 0) {
            shadow.other_reader = me;
        }
        return;
    }
    if (shadow.write_epoch == state.epoch && shadow.writer.thread != self.linear) {
        add_finding(state, "shared_race_write_write",
                    thread_name(state, shadow.writer.thread) + " and " +
                        thread_name(state, self.linear) + " both wrote " +
                        memory.element_name(flat) + " (lines " +
                        std::to_string(shadow.writer.line) + " and " + std::to_string(line) +
                        ") with no __syncthreads() between them: let one thread write each "
                        "element");
    }
    if (shadow.read_epoch == state.epoch) {
        const mark other =
            shadow.reader.thread != self.linear ? shadow.reader : shadow.other_reader;
        if (other.thread >= 0 && other.thread != self.linear)
            shared_race(state, memory, flat, other, me);
    }
    shadow.write_epoch = state.epoch;
    shadow.writer = me;
    shadow.written = true;
}

void record_global(launch_state& state, region& memory, std::int64_t flat, bool write, int line) {
    fiber& self = state.current();
    if (!write) {
        memory.bytes_read += memory.element_size;
        return;
    }
    memory.bytes_written += memory.element_size;
    auto& shadow = memory.marks[static_cast<std::size_t>(flat)];
    if (shadow.launch_writer >= 0 && shadow.launch_writer != self.launch_id) {
        add_finding(state, "output_written_twice",
                    "two threads wrote " + memory.element_name(flat) + ": line " +
                        std::to_string(shadow.launch_write_line) + " and " +
                        thread_name(state, self.linear) + " at line " + std::to_string(line) +
                        " (each output element belongs to one thread: which one writes it?)");
    }
    shadow.launch_writer = self.launch_id;
    shadow.launch_write_line = line;
}

}  // namespace

const thread_place& here() {
    launch_state& state = launch();
    return state.current().place;
}

void sync_threads(int line) {
    launch_state& state = launch();
    fiber& self = state.current();
    self.now = fiber::state::waiting;
    self.barrier_line = line;
    switch_to_scheduler(state, self, false);
    if (state.stopped) throw thread_stopped{};
}

void record(region& memory, std::int64_t flat, bool write, int line) {
    launch_state& state = launch();
    if (flat < 0 || flat >= memory.count) {
        stop(state, "out_of_bounds",
             thread_name(state, state.current().linear) + (write ? " wrote " : " read ") +
                 memory.name + "[" + std::to_string(flat) + "] at line " + std::to_string(line) +
                 ": out of bounds (" + memory.name + " has " + std::to_string(memory.count) +
                 " elements: 0.." + std::to_string(memory.count - 1) + ")");
    }
    if (write && !memory.writable) {
        stop(state, "read_only_written",
             thread_name(state, state.current().linear) + " wrote " + memory.element_name(flat) +
                 " at line " + std::to_string(line) + ", an input the kernel must only read");
    }
    if (memory.shared) {
        record_shared(state, memory, flat, write, line);
    } else {
        record_global(state, memory, flat, write, line);
    }
}

void check_bounds(region& memory, std::int64_t row, std::int64_t column, int line) {
    launch_state& state = launch();
    const bool row_out = row < 0 || row >= memory.rows;
    if (!row_out && column >= 0 && column < memory.columns) return;
    const std::string who = thread_name(state, state.current().linear);
    if (row_out) {
        stop(state, "out_of_bounds",
             who + " indexed " + memory.name + "[" + std::to_string(row) + "] at line " +
                 std::to_string(line) + ": out of bounds (" + std::to_string(memory.rows) +
                 " rows: 0.." + std::to_string(memory.rows - 1) + ")");
    }
    stop(state, "out_of_bounds",
         who + " indexed " + memory.name + "[" + std::to_string(row) + "][" +
             std::to_string(column) + "] at line " + std::to_string(line) + ": out of bounds (" +
             std::to_string(memory.columns) + " columns: 0.." + std::to_string(memory.columns - 1) +
             ")");
}

void* shared_storage(const char* name, std::size_t size, std::int64_t rows, std::int64_t cols,
                     region** memory) {
    launch_state& state = launch();
    for (auto& each : state.shared) {
        if (each->name != name) continue;
        if (each->element_size != size || each->rows != rows || each->columns != cols) {
            throw std::logic_error(std::string("the shared array ") + name +
                                   " is declared twice, with two shapes");
        }
        *memory = each.get();
        return each->storage.get();
    }
    auto created = std::make_unique<region>();
    created->name = name;
    created->shared = true;
    created->rows = rows;
    created->columns = cols;
    created->count = rows * cols;
    created->element_size = size;
    created->first_word = state.shared_words;
    const auto bytes = static_cast<std::size_t>(created->count) * size;
    state.shared_words += (bytes + 15) / 16 * 4;  // 16-byte aligned, as nvcc places them
    // What a GPU's shared memory holds before a write: garbage. All bits set is nan in a float.
    created->storage = std::make_unique<unsigned char[]>(bytes);
    std::memset(created->storage.get(), 0xff, bytes);
    created->marks.resize(static_cast<std::size_t>(created->count));
    *memory = created.get();
    state.shared.push_back(std::move(created));
    return state.shared.back()->storage.get();
}

std::shared_ptr<region> global_region(const char* name, void* data, std::size_t count,
                                      std::size_t size, bool writable) {
    (void)data;
    auto memory = std::make_shared<region>();
    memory->name = name;
    memory->writable = writable;
    memory->rows = static_cast<std::int64_t>(count);
    memory->count = static_cast<std::int64_t>(count);
    memory->element_size = size;
    if (writable) memory->marks.resize(count);
    pending_globals.push_back(memory);
    return memory;
}

const launch_report& last_launch() { return last; }

void run(const dim3& grid, const dim3& block, const std::function<void()>& body) {
    const std::uint64_t threads = std::uint64_t{block.x} * block.y * block.z;
    if (threads == 0 || threads > 1024 || grid.x == 0 || grid.y == 0 || grid.z == 0) {
        pending_globals.clear();
        throw gpu::kernel_error("launch_configuration",
                                gpu::kernel_error::summary_of("launch_configuration") +
                                    ": a launch of " + std::to_string(threads) +
                                    " threads a block on a grid with an empty side: a block has "
                                    "1 to 1024 threads, a grid at least one block");
    }
    if (active != nullptr) throw std::logic_error("a kernel launched from inside a kernel");
    launch_state state;
    state.grid = grid;
    state.block = block;
    state.body = &body;
    state.fibers.resize(threads);
    for (auto& each : state.fibers) each.stack = std::make_unique<fiber_stack>();
    const auto globals = std::move(pending_globals);
    pending_globals.clear();
    active = &state;
    for (unsigned z = 0; z < grid.z && !state.stopped; ++z) {
        for (unsigned y = 0; y < grid.y && !state.stopped; ++y) {
            for (unsigned x = 0; x < grid.x && !state.stopped; ++x) run_block(state, dim3(x, y, z));
        }
    }
    active = nullptr;
    for (const auto& memory : globals) {
        state.report.global_bytes_read += memory->bytes_read;
        state.report.global_bytes_written += memory->bytes_written;
    }
    // The root cause first: a race explains the garbage a thread then read (a read before the
    // barrier reads a row no thread has written yet), whatever was found first.
    static const std::vector<std::string> priority = {"shared_race_raw",
                                                      "shared_race_war",
                                                      "shared_race_write_write",
                                                      "divergent_barrier",
                                                      "out_of_bounds",
                                                      "read_only_written",
                                                      "threw",
                                                      "uninitialised_shared_read",
                                                      "output_written_twice"};
    const auto rank = [&](const finding& each) {
        return std::find(priority.begin(), priority.end(), each.id) - priority.begin();
    };
    std::stable_sort(state.report.findings.begin(), state.report.findings.end(),
                     [&](const finding& a, const finding& b) { return rank(a) < rank(b); });
    last = state.report;
    if (!last.findings.empty()) {
        throw gpu::kernel_error(last.findings.front().id, last.findings.front().text);
    }
}

}  // namespace attn::kit::emu
