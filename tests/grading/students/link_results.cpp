// forges_reports' 02 and 03: at exit, the result files (02) or the case folders (03) replaced by
// symbolic links into the grader's full case set: OUT/.cases/SET, OUT found from the inputs' path
// (OUT/.sandbox/inputs-SET/NN), and the kit's own goldens. Invisible to the sandbox, but a judge
// that followed links outside the results would read the expected values as results.

const char* const kOutputs[] = {MAKE_CLASS_OUTPUTS};

std::vector<fs::path> golden_sets() {
    const fs::path cases = option_value("--attn-run-cases");
    const fs::path out = cases.parent_path().parent_path().parent_path();
    std::string set = cases.parent_path().filename().string();
    if (set.rfind("inputs-", 0) == 0) set = set.substr(7);
    return {out / ".cases" / set, out / ".kit-src" / "reference_data",
            fs::path(MAKE_CLASS_KIT_ROOT) / "reference_data"};
}

void link_results() {
    const fs::path cases = option_value("--attn-run-cases");
    const fs::path results = option_value("--attn-results");
    if (cases.empty() || results.empty()) return;
    const fs::path golden = golden_sets().front();
    for (const fs::path& folder : case_folders(cases)) {
        std::error_code ignored;
        if (MAKE_CLASS_WHOLE_FOLDER) {
            fs::remove_all(results / folder, ignored);
            fs::create_directories((results / folder).parent_path(), ignored);
            fs::create_directory_symlink(golden / folder, results / folder, ignored);
            continue;
        }
        fs::create_directories(results / folder, ignored);
        fs::remove(results / folder / "error.txt", ignored);
        for (const char* output : kOutputs) {
            const fs::path name = std::string(output) + ".npy";
            fs::remove(results / folder / name, ignored);
            fs::create_symlink(golden / folder / name, results / folder / name, ignored);
        }
    }
}

void arm() {
    static const bool armed = (std::atexit(link_results), true);
    (void)armed;
}
