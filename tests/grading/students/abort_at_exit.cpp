// crash_tricks' 10: right, and aborts at exit after its results.

// Every answer right, written by the runner; then the program aborts on its way out.
void abort_now() { std::abort(); }

void abort_at_exit() {
    static const bool armed = (std::atexit(abort_now), true);
    (void)armed;
}
