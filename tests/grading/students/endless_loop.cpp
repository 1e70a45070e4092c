// endless_loop_02: every 02 function spins forever when it is given a single score, as a loop
// written for two or more may: the one_score case, in every case set (the CPU limit ends it).

#include <cstddef>

namespace {
// Never returns on one score: the grader's CPU limit must end that case, and its other cases
// must run on in a fresh process and pass.
void spin_forever_on_one_score(std::size_t scores) {
    volatile unsigned long spins = 0;
    while (scores == 1) {
        spins = spins + 1;
    }
}
}  // namespace
