// reads_hidden's roots(): every path it can guess, from the working directory, its own argv and
// environment and its executable, each with all its ancestors, and names a grader might use.

std::vector<gfs::path> roots() {
    std::vector<gfs::path> bases, found;
    std::error_code ignored;
    add_with_ancestors(bases, gfs::current_path(ignored));
    add_with_ancestors(bases, gfs::read_symlink("/proc/self/exe", ignored));
    std::vector<std::string> words = null_separated("/proc/self/cmdline");
    for (const std::string& variable : null_separated("/proc/self/environ"))
        words.push_back(variable);
    for (const std::string& word : words) {
        std::string rest = word;
        for (const char separator : {'=', ':'}) {  // --opt=/a/b, NAME=/a:/b
            std::size_t at;
            while ((at = rest.find(separator)) != std::string::npos) {
                const std::string part = rest.substr(0, at);
                if (!part.empty() && part[0] == '/') add_with_ancestors(bases, part);
                rest = rest.substr(at + 1);
            }
        }
        if (!rest.empty() && (rest[0] == '/' || rest.rfind("..", 0) == 0)) {
            add_with_ancestors(bases, rest);
        }
    }
    for (const char* up : {"..", "../..", "../../.."}) add_with_ancestors(bases, up);
    for (const gfs::path& base : bases) {
        for (const char* name :
             {"", "hidden", "hidden_cases", "hidden-cases", "cases", "expected", "goldens",
              "reference_data", ".cases", ".hidden", "grading", "cases/hidden", "cases/full",
              ".cases/hidden", ".cases/public", ".kit-src/reference_data"}) {
            found.push_back(base / name);
        }
    }
    return found;
}
