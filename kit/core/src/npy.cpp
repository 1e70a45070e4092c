// kit/core/src/npy.cpp — .npy files read with every length, count and byte checked first.
#include "kit/npy.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <limits>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace attn::kit {
namespace {

constexpr char npy_magic[] = "\x93NUMPY";
constexpr std::size_t npy_magic_length = 6;
constexpr std::size_t npy_max_dimensions = 64;  // NumPy 2's limit

std::size_t npy_little_endian(const std::string& bytes, std::size_t at, std::size_t width) {
    std::size_t value = 0;
    for (std::size_t i = 0; i < width; ++i) {
        value |= std::size_t{static_cast<unsigned char>(bytes[at + i])} << (8 * i);
    }
    return value;
}

// Header text quoted in a message: printable ASCII only, and short (it is the file's, not ours).
std::string npy_quoted(const std::string& text) {
    constexpr std::size_t shown = 16;
    std::string quoted;
    for (std::size_t i = 0; i < text.size() && i < shown; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        quoted += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?';
    }
    return text.size() > shown ? quoted + "..." : quoted;
}

struct npy_header {
    std::string descr;
    bool fortran_order = false;
    std::vector<std::size_t> shape;
};

struct npy_header_problem : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The header's Python dict literal, as NumPy writes it:
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// Read strictly, in one pass with no recursion and no regex: xtensor's parser takes back() of
// an empty string and runs a (recursive, in libstdc++) std::regex over the file's text.
class npy_header_parser {
public:
    explicit npy_header_parser(const std::string& text) : text_(text) {}

    npy_header parse() {
        skip_space();
        if (!take('{')) throw npy_header_problem("its header is not a Python dict");
        bool seen_descr = false, seen_fortran = false, seen_shape = false;
        npy_header header;
        for (;;) {
            skip_space();
            if (take('}')) break;
            const std::string key = quoted_string("its header has a key that is not a string");
            bool* seen = key == "descr"           ? &seen_descr
                         : key == "fortran_order" ? &seen_fortran
                         : key == "shape"         ? &seen_shape
                                                  : nullptr;
            if (!seen) throw npy_header_problem("its header has an unknown key " + npy_quoted(key));
            if (*seen) throw npy_header_problem("its header has the key " + key + " twice");
            *seen = true;
            skip_space();
            if (!take(':')) throw npy_header_problem("its header has no ':' after " + key);
            skip_space();
            if (key == "descr") header.descr = quoted_string("its descr is not a string");
            if (key == "fortran_order") header.fortran_order = python_bool();
            if (key == "shape") header.shape = tuple();
            skip_space();
            if (take('}')) break;
            if (!take(',')) throw npy_header_problem("its header is not a Python dict");
        }
        skip_space();
        if (at_ < text_.size()) throw npy_header_problem("its header goes on after its dict");
        if (!seen_descr) throw npy_header_problem("its header lacks the key descr");
        if (!seen_fortran) throw npy_header_problem("its header lacks the key fortran_order");
        if (!seen_shape) throw npy_header_problem("its header lacks the key shape");
        return header;
    }

private:
    void skip_space() {
        while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\n')) ++at_;
    }
    bool take(char c) {
        if (at_ >= text_.size() || text_[at_] != c) return false;
        ++at_;
        return true;
    }
    bool take(const char* word) {
        const std::size_t length = std::strlen(word);
        if (text_.compare(at_, length, word) != 0) return false;
        at_ += length;
        return true;
    }
    // '...' or "..." without escapes (no key or dtype of the kit has one).
    std::string quoted_string(const char* not_a_string) {
        const char quote = at_ < text_.size() ? text_[at_] : '\0';
        if (quote != '\'' && quote != '"') {
            throw npy_header_problem(not_a_string);
        }
        const std::size_t end = text_.find(quote, at_ + 1);
        if (end == std::string::npos) throw npy_header_problem("its header has an open string");
        std::string value = text_.substr(at_ + 1, end - at_ - 1);
        if (value.find('\\') != std::string::npos) {
            throw npy_header_problem("its header has an escape in a string");
        }
        at_ = end + 1;
        return value;
    }
    bool python_bool() {
        if (take("True")) return true;
        if (take("False")) return false;
        throw npy_header_problem("its fortran_order is not True or False");
    }
    // (), (3,), (2, 3) or (2, 3,): non-negative integers.
    std::vector<std::size_t> tuple() {
        if (!take('(')) throw npy_header_problem("its shape is not a tuple");
        std::vector<std::size_t> shape;
        bool comma = false;  // after the last extent: (3) is the number 3, not a tuple
        for (;;) {
            skip_space();
            if (take(')')) break;
            shape.push_back(extent());
            if (shape.size() > npy_max_dimensions) {
                throw npy_header_problem("its shape has more than " +
                                         std::to_string(npy_max_dimensions) + " dimensions");
            }
            skip_space();
            comma = take(',');
            if (!comma && !take(')')) throw npy_header_problem("its shape is not a tuple");
            if (!comma) break;
        }
        if (shape.size() == 1 && !comma) throw npy_header_problem("its shape is not a tuple");
        return shape;
    }
    std::size_t extent() {
        const std::size_t start = at_;
        std::size_t value = 0;
        while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') {
            const std::size_t digit = text_[at_++] - '0';
            if (value > (std::numeric_limits<std::size_t>::max() - digit) / 10) {
                throw npy_header_problem("its shape has an extent that overflows size_t");
            }
            value = value * 10 + digit;
        }
        if (at_ == start) throw npy_header_problem("its shape holds something other than integers");
        return value;
    }

    const std::string& text_;
    std::size_t at_ = 0;
};

template <class T>
any_tensor copy_values(const std::string& bytes, std::size_t offset,
                       const std::vector<std::size_t>& shape) {
    xt::xarray<T> tensor(shape);
    if (tensor.size() > 0) {  // an empty tensor has no buffer to copy into
        std::memcpy(tensor.data(), bytes.data() + offset, tensor.size() * sizeof(T));
    }
    return tensor;
}

// What a file that is not a regular file is.
std::string file_type(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    return "a special file";
}

// Closes the descriptor on every path out of read_regular_file.
struct file_descriptor {
    int fd;
    ~file_descriptor() {
        if (fd >= 0) ::close(fd);
    }
};

// At most `limit` bytes of the regular file `path`; with `whole`, a longer file is refused
// instead. A link is not followed, and a FIFO is opened without blocking (O_NONBLOCK), then
// refused by fstat: a results folder is the student's, and nothing named there may hang the
// judge.
std::string read_regular_file(const std::filesystem::path& path, std::size_t limit, bool whole) {
    const std::string name = path.string();
    const file_descriptor file{
        ::open(name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)};
    if (file.fd < 0) {
        const int error = errno;
        if (error == ELOOP) throw npy_error(name + " is a symbolic link; the kit follows none");
        throw npy_error(name + " cannot be read: " + std::strerror(error));
    }
    return read_descriptor(file.fd, name, limit, whole);
}

}  // namespace

any_tensor parse_npy(const std::string& bytes, const std::string& what) {
    const auto fail = [&](const std::string& problem) {
        return npy_error(what + " is not a readable .npy file: " + problem);
    };
    if (bytes.size() < npy_magic_length || bytes.compare(0, npy_magic_length, npy_magic) != 0) {
        throw fail("it does not start with NumPy's magic string");
    }
    if (bytes.size() < npy_magic_length + 2) throw fail("its header is cut short");
    const int major = static_cast<unsigned char>(bytes[npy_magic_length]);
    if (major != 1 && major != 2) {
        throw fail("format version " + std::to_string(major) + "; the kit reads 1 and 2");
    }
    const std::size_t length_width = major == 1 ? 2 : 4;
    const std::size_t header_start = npy_magic_length + 2 + length_width;
    if (bytes.size() < header_start) throw fail("its header is cut short");
    const std::size_t header_length = npy_little_endian(bytes, npy_magic_length + 2, length_width);
    if (header_length == 0) throw fail("its header length is 0");
    if (header_length > bytes.size() - header_start) {
        throw fail("its header of " + std::to_string(header_length) +
                   " bytes runs past the end of the file");
    }

    npy_header header;
    try {
        header = npy_header_parser(bytes.substr(header_start, header_length)).parse();
    } catch (const npy_header_problem& problem) {
        throw fail(problem.what());
    }
    std::size_t item_size = 0;
    if (header.descr == "<f4") item_size = 4;
    if (header.descr == "<i8") item_size = 8;
    if (header.descr == "|b1") item_size = 1;
    if (item_size == 0) {
        throw fail("dtype " + npy_quoted(header.descr) +
                   "; the kit reads float32 (<f4), int64 (<i8) and bool (|b1)");
    }
    if (header.fortran_order) throw fail("Fortran order; save it in C order");

    // Every extent multiplied, a 0 counted as 1: an empty array of absurd extents is refused
    // too, before xtensor computes its strides.
    std::size_t count = 1;
    bool empty = false;
    for (const std::size_t extent : header.shape) {
        if (extent == 0) {
            empty = true;
        } else if (count > std::numeric_limits<std::size_t>::max() / extent) {
            throw fail("its shape's element count overflows size_t");
        } else {
            count *= extent;
        }
    }
    if (count > std::numeric_limits<std::size_t>::max() / item_size) {
        throw fail("its shape's byte count overflows size_t");
    }
    if (count * item_size > max_npy_bytes) {
        throw fail("its shape needs " + std::to_string(count * item_size) +
                   " bytes, more than the " + std::to_string(max_npy_bytes) + " the kit reads");
    }
    if (empty) count = 0;
    const std::size_t data_start = header_start + header_length;
    const std::size_t data_bytes = bytes.size() - data_start;
    const std::string promise = "its header promises " + std::to_string(count) + " values of " +
                                std::to_string(item_size) + " bytes";
    if (data_bytes < count * item_size) {
        throw fail("its data is " + std::to_string(count * item_size - data_bytes) +
                   " bytes short (" + promise + ")");
    }
    if (data_bytes > count * item_size) {
        throw fail(std::to_string(data_bytes - count * item_size) + " bytes follow its data (" +
                   promise + ")");
    }
    if (header.descr == "<f4") return copy_values<float>(bytes, data_start, header.shape);
    if (header.descr == "<i8") return copy_values<std::int64_t>(bytes, data_start, header.shape);
    // A bool byte other than 0 or 1 is undefined behaviour once copied into a bool.
    for (std::size_t i = 0; i < count; ++i) {
        const auto byte = static_cast<unsigned char>(bytes[data_start + i]);
        if (byte > 1) {
            throw fail("its bool value " + std::to_string(i) + " is the byte " +
                       std::to_string(byte) + ", not 0 or 1");
        }
    }
    return copy_values<bool>(bytes, data_start, header.shape);
}

std::string read_descriptor(int fd, const std::string& name, std::size_t limit, bool whole) {
    const auto cannot_read = [&name](int error) {
        return npy_error(name + " cannot be read: " + std::strerror(error));
    };
    const auto too_large = [&name, limit] {
        return npy_error(name + " is more than the " + std::to_string(limit) +
                         " bytes the kit reads");
    };
    struct stat status {};
    if (::fstat(fd, &status) != 0) throw cannot_read(errno);
    if (!S_ISREG(status.st_mode)) {
        throw npy_error(name + " is " + file_type(status.st_mode) + ", not a regular file");
    }
    const auto size = static_cast<std::size_t>(status.st_size);
    if (whole && size > limit) throw too_large();
    std::string bytes;
    bytes.reserve(std::min(size, limit));
    std::vector<char> buffer(std::size_t{1} << 16);
    for (;;) {  // until the end, or one byte past `limit` (the file may have grown)
        const std::size_t wanted = std::min(buffer.size(), limit + 1 - bytes.size());
        const ssize_t got = ::read(fd, buffer.data(), wanted);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) throw cannot_read(errno);
        if (got == 0) break;
        bytes.append(buffer.data(), static_cast<std::size_t>(got));
        if (bytes.size() > limit) {
            if (whole) throw too_large();
            bytes.resize(limit);
            break;
        }
    }
    return bytes;
}

std::string read_file_bytes(const std::filesystem::path& path) {
    return read_regular_file(path, max_npy_bytes, true);
}

std::string read_file_start(const std::filesystem::path& path, std::size_t max_bytes) {
    return read_regular_file(path, max_bytes, false);
}

any_tensor read_npy(const std::filesystem::path& path) {
    return parse_npy(read_file_bytes(path), path.string());
}

void write_npy(const std::filesystem::path& path, const any_tensor& tensor) {
    // Format 1.0, as NumPy writes it: the magic, the version, the header's length (2 bytes,
    // little-endian), the header's dict padded with spaces to end in a newline at a multiple
    // of 64 bytes, then the values in C order.
    const auto shape = shape_of(tensor);
    std::string extents;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        extents += (d ? ", " : "") + std::to_string(shape[d]);
    }
    const char* const descr[] = {"<f4", "<i8", "|b1"};  // any_tensor's alternatives, in order
    std::string header = std::string("{'descr': '") + descr[tensor.index()] +
                         "', 'fortran_order': False, 'shape': (" + extents +
                         (shape.size() == 1 ? ",), }" : "), }");
    const std::size_t unpadded = npy_magic_length + 4 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    std::string bytes(npy_magic, npy_magic_length);
    bytes += {'\x01', '\x00', static_cast<char>(header.size() & 0xff),
              static_cast<char>(header.size() >> 8)};
    bytes += header;
    std::visit(
        [&](const auto& t) {
            bytes.append(reinterpret_cast<const char*>(t.data()), t.size() * sizeof(*t.data()));
        },
        tensor);

    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) throw npy_error("cannot write " + path.string() + ": " + std::strerror(errno));
}

}  // namespace attn::kit
