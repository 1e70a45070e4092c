// collude_1_publisher, collude_2_reader: two students sharing 01's answers through everything
// that could outlive a run: files in /tmp, /var/tmp, /dev/shm, /run/lock; a SysV shared memory
// segment, message queue and semaphore; a POSIX message queue. Each answer is keyed by a hash of
// the call's inputs.

constexpr key_t kShmKey = 0x41544e31;  // "ATN1"
constexpr key_t kMsgKey = 0x41544e32;
constexpr key_t kSemKey = 0x41544e33;
constexpr const char* kQueue = "/attn-answers";
const char* const kFolders[] = {"/tmp/.attn-answers", "/var/tmp/.attn-answers",
                                "/dev/shm/.attn-answers", "/run/lock/.attn-answers"};
constexpr std::size_t kMaxValues = 256;
constexpr std::size_t kBoardSize = 60;

struct answer {
    std::uint64_t key;
    std::uint32_t count;
    float values[kMaxValues];
};

struct board {  // the shared memory segment
    std::uint32_t used;
    answer answers[kBoardSize];
};

struct message {
    long type;
    answer body;
};

template <class Tensor>
std::uint64_t mix(std::uint64_t hash, const Tensor& tensor) {
    for (std::size_t d = 0; d < tensor.dimension(); ++d) {
        hash = (hash ^ tensor.shape(d)) * 1099511628211ull;
    }
    const auto* bytes = reinterpret_cast<const unsigned char*>(tensor.data());
    for (std::size_t i = 0; i < tensor.size() * sizeof(float); ++i) {
        hash = (hash ^ bytes[i]) * 1099511628211ull;
    }
    return hash;
}

std::string file_name(std::uint64_t key) {
    char name[32];
    std::snprintf(name, sizeof name, "/%016llx.bin", static_cast<unsigned long long>(key));
    return name;
}

void publish(const answer& found) {
    ::umask(0);
    for (const char* folder : kFolders) {
        ::mkdir(folder, 0777);
        const int fd =
            ::open((folder + file_name(found.key)).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd >= 0) {
            (void)!::write(fd, &found, sizeof found);
            ::close(fd);
        }
    }
    const int shm = ::shmget(kShmKey, sizeof(board), IPC_CREAT | 0666);
    if (shm >= 0) {
        void* at = ::shmat(shm, nullptr, 0);
        if (at != reinterpret_cast<void*>(-1)) {
            board* shared = static_cast<board*>(at);
            if (shared->used < kBoardSize) shared->answers[shared->used++] = found;
            ::shmdt(at);
        }
    }
    const int queue = ::msgget(kMsgKey, IPC_CREAT | 0666);
    if (queue >= 0) {
        message sent{1, found};
        ::msgsnd(queue, &sent, sizeof sent.body, IPC_NOWAIT);
    }
    const int sem = ::semget(kSemKey, 1, IPC_CREAT | 0666);
    if (sem >= 0) {
        sembuf up{0, 1, 0};  // no SEM_UNDO: the count stays when the process ends
        ::semop(sem, &up, 1);
    }
    mq_attr attributes{};
    attributes.mq_maxmsg = 10;
    attributes.mq_msgsize = sizeof(answer);
    const mqd_t mq = ::mq_open(kQueue, O_CREAT | O_WRONLY | O_NONBLOCK, 0666, &attributes);
    if (mq != static_cast<mqd_t>(-1)) {
        ::mq_send(mq, reinterpret_cast<const char*>(&found), sizeof found, 0);
        ::mq_close(mq);
    }
}

bool lookup(std::uint64_t key, answer& found) {
    for (const char* folder : kFolders) {
        const int fd = ::open((folder + file_name(key)).c_str(), O_RDONLY);
        if (fd < 0) continue;
        const bool whole = ::read(fd, &found, sizeof found) == static_cast<ssize_t>(sizeof found);
        ::close(fd);
        if (whole && found.key == key && found.count <= kMaxValues) return true;
    }
    const int shm = ::shmget(kShmKey, 0, 0);
    if (shm >= 0) {
        void* at = ::shmat(shm, nullptr, SHM_RDONLY);
        if (at != reinterpret_cast<void*>(-1)) {
            const board* shared = static_cast<const board*>(at);
            bool hit = false;
            for (std::uint32_t i = 0; i < shared->used && i < kBoardSize && !hit; ++i) {
                if (shared->answers[i].key == key) {
                    found = shared->answers[i];
                    hit = true;
                }
            }
            ::shmdt(at);
            if (hit) return true;
        }
    }
    bool hit = false;
    const int queue = ::msgget(kMsgKey, 0);
    if (queue >= 0) {  // read every message, put them all back
        std::vector<message> all;
        message got{};
        while (all.size() < 1000 && ::msgrcv(queue, &got, sizeof got.body, 0, IPC_NOWAIT) >= 0) {
            all.push_back(got);
        }
        for (message& one : all) {
            if (one.body.key == key && !hit) {
                found = one.body;
                hit = true;
            }
            ::msgsnd(queue, &one, sizeof one.body, IPC_NOWAIT);
        }
    }
    const mqd_t mq = ::mq_open(kQueue, O_RDWR | O_NONBLOCK);
    if (mq != static_cast<mqd_t>(-1)) {
        mq_attr attributes{};
        ::mq_getattr(mq, &attributes);
        std::vector<std::vector<char>> all;
        std::vector<char> buffer(static_cast<std::size_t>(attributes.mq_msgsize) + 1);
        ssize_t length;
        while (all.size() < 100 &&
               (length = ::mq_receive(mq, buffer.data(), buffer.size(), nullptr)) >= 0) {
            all.emplace_back(buffer.begin(), buffer.begin() + length);
        }
        for (const std::vector<char>& one : all) {
            answer candidate{};
            if (one.size() == sizeof candidate) {
                std::memcpy(&candidate, one.data(), sizeof candidate);
                if (candidate.key == key && !hit) {
                    found = candidate;
                    hit = true;
                }
            }
            ::mq_send(mq, one.data(), one.size(), 0);
        }
        ::mq_close(mq);
    }
    return hit;
}
