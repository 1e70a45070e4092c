// exhausts' 02: fills /tmp, /var/tmp, /dev/shm and the working directory.

// Files of exactly the file-size limit (SIGXFSZ ignored, so a write past it would fail rather
// than kill), in /tmp, /var/tmp, /dev/shm and then the working directory, until each is full
// (ENOSPC) or 4 GiB in all were written: a safety net for a machine with no bound. The files
// stay; the answer is still computed, but with the disk full its result cannot be written.
void fill_the_disk() {
    static bool filled = false;
    if (filled) return;
    filled = true;
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit{};
    ::getrlimit(RLIMIT_FSIZE, &limit);
    const std::size_t file_bytes =
        limit.rlim_cur == RLIM_INFINITY ? (std::size_t{64} << 20) : limit.rlim_cur;
    const std::vector<char> block(std::size_t{1} << 20, 'x');
    std::size_t total = 0;
    const std::size_t cap = std::size_t{4} << 30;
    for (const char* place : {"/tmp", "/var/tmp", "/dev/shm", "."}) {
        std::size_t here = 0;
        const std::size_t place_cap = place[0] == '.' ? cap : std::size_t{256} << 20;
        for (int n = 0; here < place_cap && total < cap; ++n) {
            const std::string name = std::string(place) + "/.fill-" + std::to_string(::getpid()) +
                                     "-" + std::to_string(n);
            const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (fd < 0) break;
            std::size_t written = 0;
            bool full = false;
            while (written < file_bytes) {
                const std::size_t size = std::min(block.size(), file_bytes - written);
                const ssize_t wrote = ::write(fd, block.data(), size);
                if (wrote <= 0) {
                    full = true;  // ENOSPC, EDQUOT, EFBIG
                    break;
                }
                written += static_cast<std::size_t>(wrote);
            }
            ::close(fd);
            here += written;
            total += written;
            if (full) break;
        }
    }
}
