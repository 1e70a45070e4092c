// kit/core/src/reference_data_folder.cpp — the one path compiled into kit_core.
//
// In a file of its own, so that the rest of kit_core (kit_core.cpp) compiles to the same
// object wherever the kit is: a compiler cache then finds it for another copy of the kit (the
// grader's pristine builds, a CI clone).
#include "kit/golden_store.hpp"

#include <cstdlib>

namespace attn::kit {

std::filesystem::path reference_data_folder() {
    const char* override_root = std::getenv("ATTN_REFERENCE_DATA");
    return override_root ? std::filesystem::path(override_root)
                         : std::filesystem::path(ATTN_REFERENCE_DATA_DIR);
}

}  // namespace attn::kit
