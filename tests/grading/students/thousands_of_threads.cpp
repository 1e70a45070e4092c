// exhausts' 04: starts 5000 threads.

// "Parallel" code: 5000 threads, all started before any may finish. Past the process limit (or
// the address space their stacks take) a thread does not start: std::system_error, after the
// started ones are joined, and the call fails.
void thousands_of_threads() {
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    try {
        for (int i = 0; i < 5000; ++i) {
            threads.emplace_back([&go] {
                while (!go) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            });
        }
    } catch (const std::system_error&) {
        go = true;
        for (std::thread& thread : threads) thread.join();
        throw;
    }
    go = true;
    for (std::thread& thread : threads) thread.join();
}
