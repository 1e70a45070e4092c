// reads_public_goldens' roots(): where a student's own checks find the goldens: reference_data/
// in the working directory or above it, and the case set the runner is given.

std::vector<gfs::path> roots() {
    std::vector<gfs::path> found, ancestors;
    std::error_code ignored;
    add_with_ancestors(ancestors, gfs::current_path(ignored));
    for (const gfs::path& at : ancestors) {
        found.push_back(at / "reference_data");
    }
    for (const std::string& arg : null_separated("/proc/self/cmdline")) {
        if (arg.rfind("--attn-run-cases=", 0) == 0) found.push_back(arg.substr(17));
    }
    return found;
}
