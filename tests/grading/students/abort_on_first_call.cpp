// crash_tricks' 14: the first call of each process aborts.

// A "warm-up" that fails: a static counter, and the first call in a process aborts; every
// later call would be right. A grader that gives each crashed case's followers a fresh process
// makes every one of them a first call again.
void abort_on_first_call() {
    static int calls = 0;
    if (calls++ == 0) std::abort();
}
