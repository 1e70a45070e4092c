// exhausts' 03: opens files until EMFILE.

// Opens /dev/null until the process may open no more (EMFILE), and keeps every descriptor: the
// runner can then neither read the next case's inputs nor write a result.
void open_every_file() {
    static std::vector<int> kept;
    for (int n = 0; n < (1 << 20); ++n) {
        const int fd = ::open("/dev/null", O_RDONLY);
        if (fd < 0) break;
        kept.push_back(fd);
    }
}
