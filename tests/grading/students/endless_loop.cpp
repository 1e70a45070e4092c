// endless_loop_02: every 02 function spins forever (the wall timeout).

namespace {
// Never returns: the grader's wall timeout must end it.
[[noreturn]] void spin_forever() {
    volatile unsigned long spins = 0;
    for (;;) {
        spins = spins + 1;
    }
}
}  // namespace
