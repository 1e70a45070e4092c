// crash_tricks' 12: right, and _exit(3) at exit.

// Every answer right, written by the runner; then the program exits with a failure status.
void exit_three() { _exit(3); }

void exit_at_exit() {
    static const bool armed = (std::atexit(exit_three), true);
    (void)armed;
}
