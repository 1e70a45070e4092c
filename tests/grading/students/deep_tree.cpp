// deep_tree_01: 01's solution, whose runner first leaves 3,000 nested folders in its working
// directory. The grader's cleanup (shutil.rmtree) hit Python's recursion limit, which
// ignore_errors does not catch: every later student in that job slot got "grader error:
// RecursionError", solved ones included. Its own grade is the solution's; no classmate's moves.

#include <filesystem>

namespace {

[[maybe_unused]] const bool planted = [] {
    std::error_code ignored;
    std::filesystem::path deep = std::filesystem::current_path(ignored);
    for (int level = 0; level < 3000 && !ignored; ++level) {
        deep /= "d";
        std::filesystem::create_directory(deep, ignored);
    }
    return true;
}();

}  // namespace
