// exhausts' 06: prints 2 GiB.

// 2 GiB of debugging output on stdout, once per process; the answer is still right.
void flood_stdout() {
    static bool flooded = false;
    if (flooded) return;
    flooded = true;
    std::string line(1023, '#');
    line += '\n';
    std::string chunk;
    for (int i = 0; i < 1024; ++i) chunk += line;  // 1 MiB
    for (int i = 0; i < 2048; ++i) {
        if (std::fwrite(chunk.data(), 1, chunk.size(), stdout) != chunk.size()) break;
    }
    std::fflush(stdout);
}
