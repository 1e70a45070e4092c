// fork_bomb: every 02 function forks in a loop, children too, when it is given a single score:
// the one_score case, in every case set.

#include <cstddef>
#include <ctime>
#include <sys/types.h>
#include <unistd.h>
namespace {
// Forks in a loop, and every child does too: only the sandbox's process limit bounds it, and
// the grader must kill what is left after the wall timeout. A safety net for a grader without
// limits: the children (never the runner itself, which must time out) leave after a minute.
// 02's next cases run as the same uid: they pass only if nothing of the bomb is left.
void fork_bomb_on_one_score(std::size_t scores) {
    if (scores != 1) {
        return;
    }
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
