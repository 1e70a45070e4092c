// kit/kernel_error.hpp — what the kit's CUDA emulator throws when a kernel breaks a rule of
// the GPU (kit/emu.hpp), as a verdict names it: a stable id ("shared_race_raw") and its
// summary, the words a status line shows. Here, in the kit's core, so that a test program
// names the finding (kit/student_code.hpp, failure_of) the way it names a recorded mistake,
// whether the emulator is linked or not.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace attn::gpu {

class kernel_error : public std::runtime_error {
public:
    // `text`: the finding in full, with its threads, element and lines.
    kernel_error(std::string id, const std::string& text)
        : std::runtime_error(text), id_(std::move(id)) {}
    // A stable name for the kind of finding: "shared_race_raw", "divergent_barrier", ...
    const std::string& id() const { return id_; }
    // What the kind of finding is, in a student's words; the text starts with it.
    std::string summary() const { return summary_of(id_); }
    static std::string summary_of(const std::string& id) {
        struct named {
            const char* id;
            const char* words;
        };
        static constexpr named summaries[] = {
            {"shared_race_raw", "a race on shared memory (read-after-write)"},
            {"shared_race_war", "a race on shared memory (write-after-read)"},
            {"shared_race_write_write", "a race on shared memory (two writes)"},
            {"divergent_barrier", "a divergent barrier"},
            {"out_of_bounds", "an index out of bounds"},
            {"read_only_written", "an input written"},
            {"threw", "a thread threw"},
            {"uninitialised_shared_read", "a read of shared memory no thread wrote"},
            {"output_written_twice", "an output element written twice"},
            {"launch_configuration", "a launch no GPU runs"},
        };
        for (const auto& [known, words] : summaries) {
            if (id == known) return words;
        }
        return id;
    }

private:
    std::string id_;
};

}  // namespace attn::gpu
