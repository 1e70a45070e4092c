// fork_bomb: every 02 function forks in a loop, children too.

#include <ctime>
#include <sys/types.h>
#include <unistd.h>
namespace {
// Forks in a loop, and every child does too: only the sandbox's process limit bounds it, and
// the grader must kill what is left after the wall timeout. A safety net for a grader without
// limits: the children (never the runner itself, which must time out) leave after a minute.
[[noreturn]] void fork_bomb() {
    const pid_t runner = getpid();
    const std::time_t start = std::time(nullptr);
    for (;;) {
        if (getpid() != runner && std::time(nullptr) - start > 60) {
            _exit(0);
        }
        fork();
        usleep(5000);
    }
}
}  // namespace
