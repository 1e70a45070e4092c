// memory_hog: every 05 function allocates and fills 8 GiB.

#include <cstddef>
#include <vector>
namespace {
// 8 GiB, every byte written: under the sandbox's address-space limit the allocation throws
// std::bad_alloc, so the call fails; without a limit it would take 8 GiB of the machine.
void hog_memory() {
    static std::vector<std::vector<char>> kept;
    kept.emplace_back(std::size_t{8} << 30, char{1});
}
}  // namespace
