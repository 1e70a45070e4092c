// kit/core/src/npy.cpp — bounds-checked .npy parsing over xtensor's header parser.
#include "kit/npy.hpp"

#include <xtensor/xnpy.hpp>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

namespace attn::kit {
namespace {

constexpr char magic[] = "\x93NUMPY";
constexpr std::size_t magic_length = 6;

std::size_t little_endian(const std::string& bytes, std::size_t at, std::size_t width) {
    std::size_t value = 0;
    for (std::size_t i = 0; i < width; ++i) {
        value |= std::size_t{static_cast<unsigned char>(bytes[at + i])} << (8 * i);
    }
    return value;
}

template <class T>
any_tensor copy_values(const std::string& bytes, std::size_t offset,
                       const std::vector<std::size_t>& shape) {
    xt::xarray<T> tensor(shape);
    if (tensor.size() > 0) {  // an empty tensor has no buffer to copy into
        std::memcpy(tensor.data(), bytes.data() + offset, tensor.size() * sizeof(T));
    }
    return tensor;
}

}  // namespace

any_tensor parse_npy(const std::string& bytes, const std::string& what) {
    const auto fail = [&](const std::string& problem) {
        return npy_error(what + " is not a readable .npy file: " + problem);
    };
    if (bytes.size() < magic_length + 4 || bytes.compare(0, magic_length, magic) != 0) {
        throw fail("it does not start with NumPy's magic string");
    }
    const int major = static_cast<unsigned char>(bytes[magic_length]);
    if (major != 1 && major != 2) throw fail("unsupported format version");
    const std::size_t length_width = major == 1 ? 2 : 4;
    const std::size_t header_start = magic_length + 2 + length_width;
    if (bytes.size() < header_start) throw fail("its header is cut short");
    const std::size_t header_length = little_endian(bytes, magic_length + 2, length_width);
    if (header_length > bytes.size() - header_start) throw fail("its header is cut short");

    std::string descr;
    bool fortran_order = false;
    std::vector<std::size_t> shape;
    try {
        xt::detail::parse_header(bytes.substr(header_start, header_length), descr, &fortran_order,
                                 shape);
    } catch (const std::exception& error) {
        throw fail(std::string("malformed header (") + error.what() + ")");
    }
    if (fortran_order) throw fail("Fortran order; save it in C order");

    std::size_t item_size = 0;
    if (descr == "<f4") item_size = 4;
    if (descr == "<i8") item_size = 8;
    if (descr == "|b1") item_size = 1;
    if (item_size == 0) throw fail("dtype " + descr + "; the kit reads float32, int64 and bool");

    std::size_t count = 1;
    for (const std::size_t extent : shape) {
        if (extent != 0 && count > std::numeric_limits<std::size_t>::max() / extent) {
            throw fail("its shape is too large");
        }
        count *= extent;
    }
    const std::size_t data_start = header_start + header_length;
    if (count > (bytes.size() - data_start) / item_size ||
        bytes.size() - data_start != count * item_size) {
        throw fail("its data has " + std::to_string(bytes.size() - data_start) +
                   " bytes, its header promises " + std::to_string(count) + " values of " +
                   std::to_string(item_size) + " bytes");
    }
    if (descr == "<f4") return copy_values<float>(bytes, data_start, shape);
    if (descr == "<i8") return copy_values<std::int64_t>(bytes, data_start, shape);
    return copy_values<bool>(bytes, data_start, shape);
}

std::string read_file_bytes(const std::filesystem::path& path) {
    std::error_code error;
    const auto size = std::filesystem::file_size(path, error);
    if (error) throw npy_error(path.string() + " cannot be read: " + error.message());
    if (size > max_npy_bytes) {
        throw npy_error(path.string() + " is " + std::to_string(size) + " bytes, more than the " +
                        std::to_string(max_npy_bytes) + " the kit reads");
    }
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (!in) throw npy_error(path.string() + " cannot be read");
    return bytes.str();
}

any_tensor read_npy(const std::filesystem::path& path) {
    return parse_npy(read_file_bytes(path), path.string());
}

void write_npy(const std::filesystem::path& path, const any_tensor& tensor) {
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
    std::visit([&](const auto& t) { xt::dump_npy(path.string(), t); }, tensor);
}

}  // namespace attn::kit
