// tests/grading/attacks/rewrites_results.cpp — a runner's stand-in for test_sandbox.py: its
// main() writes the result results/case_1/out.txt = "real" (in the working directory) and
// exits at once; its static initializer first starts a daemon (fork, setsid, fork; every
// signal ignored) that waits for the runner's exit (its end of a pipe closing, then its pid
// gone), then rewrites the result as "forged" in a tight loop for 5 s. With ATTACK_BURN set,
// it writes as soon as the pipe closes and keeps burning CPU for 30 s (past any CPU limit of
// the runner's). Where fork() is refused it writes why to fork-refused, and the runner goes on.
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

void write_file(const char* path, const char* text) {
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    [[maybe_unused]] ssize_t n = write(fd, text, std::strlen(text));
    close(fd);
}

bool burn() { return std::getenv("ATTACK_BURN") != nullptr; }

// Returns in the runner; in the daemon, never.
int start_daemon() {
    int exited[2];
    if (pipe(exited) != 0) return 0;
    const pid_t runner = getpid();
    const pid_t child = fork();
    if (child < 0) {  // refused: say so, the runner goes on
        write_file("fork-refused", std::strerror(errno));
        close(exited[0]);
        close(exited[1]);
        return 0;
    }
    if (child > 0) {
        close(exited[0]);  // the runner keeps the write end until it exits
        waitpid(child, nullptr, 0);
        return 0;
    }
    setsid();
    if (fork() != 0) _exit(0);
    for (int sig = 1; sig < 32; ++sig) std::signal(sig, SIG_IGN);
    close(exited[1]);
    write_file("daemon-started", "");
    char byte;
    while (read(exited[0], &byte, 1) != 0) {  // EOF: the runner has exited (its files closed)
    }
    while (kill(runner, 0) == 0 && !burn()) {  // ... and then its pid is gone
    }
    const std::time_t start = std::time(nullptr);
    while (std::time(nullptr) - start < (burn() ? 30 : 5)) {
        mkdir("results/case_1", 0755);
        write_file("results/case_1/out.txt", "forged\n");
    }
    _exit(0);
}

[[maybe_unused]] const int daemon_started = start_daemon();

}  // namespace

int main() {
    mkdir("results", 0755);
    mkdir("results/case_1", 0755);
    write_file("results/case_1/out.txt", "real\n");
    return 0;
}
