// kit/npy.hpp — NumPy .npy files in the three dtypes of the kit, read defensively.
//
// xtensor's xt::load_npy trusts its input: a short file leaves the tensor partly
// uninitialised and a forged header asks for any amount of memory. The judge reads result
// files that student code wrote, so every read goes through read_npy: it opens only a regular
// file (no link followed, a FIFO never waited on), parses the header strictly (its own
// parser: xtensor's has undefined behaviour on an empty header), checks the shape against
// overflow and the file's size, and every bool byte, before copying a byte; it accepts only
// little-endian float32, int64 and bool in C order. Every refusal is an npy_error naming it.
#pragma once

#include "kit/any_tensor.hpp"

#include <filesystem>
#include <stdexcept>
#include <string>

namespace attn::kit {

// A file that is not a .npy file the kit can read; the message says what is wrong.
class npy_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Files larger than this are refused (the largest golden, GPT-2's scores, is far smaller).
constexpr std::size_t max_npy_bytes = std::size_t{512} << 20;

// The tensor in `bytes`. Throws npy_error naming `what` (a path, usually) otherwise.
any_tensor parse_npy(const std::string& bytes, const std::string& what);

// The bytes of the regular file `path`, at most max_npy_bytes; throws npy_error if it cannot be
// read, is larger, is a symbolic link or is not a regular file (a FIFO, a folder, a device).
std::string read_file_bytes(const std::filesystem::path& path);

// The first `max_bytes` bytes (or fewer) of the regular file `path`, opened as read_file_bytes
// opens it: for a text file of untrusted length, such as a runner's error.txt.
std::string read_file_start(const std::filesystem::path& path, std::size_t max_bytes);

// What read_file_bytes (`whole`) or read_file_start reads, from a descriptor already open;
// `name` names it in errors. A file that is not a regular file is refused.
std::string read_descriptor(int fd, const std::string& name, std::size_t limit, bool whole);

// read_file_bytes + parse_npy.
any_tensor read_npy(const std::filesystem::path& path);

// Writes the tensor as a .npy file in its own dtype (creates parent folders).
void write_npy(const std::filesystem::path& path, const any_tensor& tensor);

}  // namespace attn::kit
