// exit_in_static_init: after 01's solution, exit(0) before main(): exit code 0, no results.

// ---- the attack: the program exits 0 before main() runs, so no case ever runs -----------
#include <cstdlib>
namespace {
[[maybe_unused]] const int exits_before_main = (std::exit(0), 0);
}  // namespace
