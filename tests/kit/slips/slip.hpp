// tests/kit/slips/slip.hpp — which slip this run of a slips program makes: the one the
// environment variable ATTN_SLIP names (tests/kit/test_slips.py sets it, one slip a run).
// Read on the host: device code gets the choice as a plain field.
#pragma once

#include <cstdlib>
#include <string>

inline bool slip(const char* name) {
    const char* chosen = std::getenv("ATTN_SLIP");
    return chosen != nullptr && std::string(chosen) == name;
}
