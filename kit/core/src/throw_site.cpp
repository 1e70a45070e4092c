// kit/core/src/throw_site.cpp — the line of the student's file where a call threw
// (kit/throw_site.hpp).
#include "kit/throw_site.hpp"

#include "throw_stack.hpp"

#include <array>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <link.h>
#include <map>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>

extern char** environ;

namespace attn::kit {
namespace {

std::string& watched_file() {
    static std::string file;
    return file;
}

// The program's own executable segments and its load bias: an address there, less the bias,
// is what addr2line looks up in the file (the bias is 0 for a program that is not PIE).
struct program_image {
    std::uintptr_t bias = 0;
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> code;  // [begin, end)

    bool holds(std::uintptr_t address) const {
        for (const auto& [begin, end] : code) {
            if (address >= begin && address < end) return true;
        }
        return false;
    }
};

program_image this_program() {
    program_image image;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* data) {
            auto& image = *static_cast<program_image*>(data);
            image.bias = info->dlpi_addr;
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const ElfW(Phdr)& segment = info->dlpi_phdr[i];
                if (segment.p_type == PT_LOAD && (segment.p_flags & PF_X) != 0) {
                    const std::uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
                    image.code.emplace_back(begin, begin + segment.p_memsz);
                }
            }
            return 1;  // the first object visited is the program itself
        },
        &image);
    return image;
}

// What `arguments` print on standard output, run without a shell; "" if they could not run
// or failed.
std::string output_of(const std::vector<std::string>& arguments) {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) return "";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, ends[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    std::vector<char*> argv;
    for (const auto& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
    argv.push_back(nullptr);
    pid_t child = 0;
    const int failed = posix_spawnp(&child, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(ends[1]);
    std::string text;
    if (failed == 0) {
        std::array<char, 4096> buffer;
        for (;;) {
            const ssize_t got = read(ends[0], buffer.data(), buffer.size());
            if (got > 0) {
                text.append(buffer.data(), static_cast<std::size_t>(got));
            } else if (got == 0 || errno != EINTR) {
                break;
            }
        }
        int status = 0;
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) text.clear();
    }
    close(ends[0]);
    return text;
}

std::string program_path() {
    std::array<char, PATH_MAX> path{};
    const ssize_t size = readlink("/proc/self/exe", path.data(), path.size() - 1);
    return size > 0 ? std::string(path.data(), static_cast<std::size_t>(size)) : "";
}

std::string trimmed(const std::string& text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos) return "";
    return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// Whether a line ends a statement, or is none ("" or a comment): a statement before it ends
// there.
bool ends_statement(const std::string& line) {
    return line.empty() || line.rfind("//", 0) == 0 || line.rfind("#", 0) == 0 ||
           std::string(";{}").find(line.back()) != std::string::npos;
}

// The statement of `path` that line `number` is part of, on one line, and the line it starts
// on: a call written over several lines is reported at one of them, and the student reads it
// from its first. At most `reach` lines either side.
std::pair<int, std::string> statement_at(const std::string& path, int number) {
    constexpr int reach = 6;
    std::ifstream file(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(file, line);) lines.push_back(trimmed(line));
    if (number < 1 || number > static_cast<int>(lines.size())) return {number, ""};
    int first = number, last = number;
    while (first > 1 && number - first < reach && !ends_statement(lines[first - 2])) --first;
    while (last < static_cast<int>(lines.size()) && last - number < reach &&
           !ends_statement(lines[last - 1])) {
        ++last;
    }
    std::string text;
    for (int i = first; i <= last; ++i) {
        const std::string& line = lines[i - 1];
        if (line.empty() || line.rfind("//", 0) == 0) continue;
        const bool joined = !text.empty() && text.back() != '(' && line.front() != ')';
        text += (joined ? " " : "") + line;
    }
    return {first, text};
}

source_line resolve(const std::vector<void*>& frames, const std::string& watched) {
    const std::string program = program_path();
    if (program.empty()) return {};
    const program_image image = this_program();
    std::vector<std::string> arguments{"addr2line", "-i", "-e", program};
    for (void* frame : frames) {
        const auto address = reinterpret_cast<std::uintptr_t>(frame);
        // A return address is the instruction after the call: the call is the byte before.
        if (image.holds(address)) {
            std::ostringstream hex;
            hex << std::hex << "0x" << (address - 1 - image.bias);
            arguments.push_back(hex.str());
        }
    }
    if (arguments.size() == 4) return {};
    // One "path:line" per frame, each inlined call then the function it was inlined into,
    // innermost first; "??:0" or "??:?" where there is no line information.
    std::istringstream output(output_of(arguments));
    const std::string name = std::filesystem::path(watched).filename().string();
    for (std::string location; std::getline(output, location);) {
        location = location.substr(0, location.find(" (discriminator"));
        const auto colon = location.rfind(':');
        if (colon == std::string::npos) continue;
        const std::string path = location.substr(0, colon);
        if (std::filesystem::path(path).filename() != name) continue;
        const int line = std::atoi(location.c_str() + colon + 1);
        if (line <= 0) continue;
        auto [first, statement] = statement_at(path, line);
        return {watched, first, std::move(statement)};
    }
    return {};
}

}  // namespace

void watch_throws_in(const std::string& file) { watched_file() = file; }

source_line latest_throw_site() {
    if (watched_file().empty() || detail::throw_stack_size == 0) return {};
    // A case set throws the same way on many cases: addr2line runs once per call stack.
    static std::map<std::vector<void*>, source_line> resolved;
    const std::vector<void*> frames(detail::throw_stack,
                                    detail::throw_stack + detail::throw_stack_size);
    const auto known = resolved.find(frames);
    if (known != resolved.end()) return known->second;
    return resolved[frames] = resolve(frames, watched_file());
}

}  // namespace attn::kit
