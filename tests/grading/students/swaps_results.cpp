// swaps_results_03: 03's stub; before main(), the runner puts a symbolic link to the grader's
// full case set (OUT/.cases/hidden where there is one, else public) in the place of its results
// folder, having renamed the folder away; it makes the next case set's folders before the
// grader does, hard-links the case set's expected files into its results where it can reach
// them, and aborts in its first call, so that the grader runs it again (and it swaps again).
// A judge that followed the link compared every golden with itself (82 points for nothing)
// and printed the hidden set's expected tensors as the student's output in the public
// feedback; a grader that then made the next set's folder met FileExistsError. The results
// folder's parent is the grader's, which the runner cannot write in, and the judge opens what
// it reads below a descriptor it holds, without following links, files of the runner's uid.

fs::path grader_out(const fs::path& cases) {  // OUT/.sandbox/inputs-SET/NN -> OUT
    return cases.parent_path().parent_path().parent_path();
}

[[maybe_unused]] const bool swapped = [] {
    const fs::path cases = option_value("--attn-run-cases");
    const fs::path results = option_value("--attn-results");
    if (cases.empty() || results.empty()) return false;
    const fs::path out = grader_out(cases);
    std::error_code ignored;
    for (const char* next : {"results-hidden", "cwd-results-hidden", "results-public"}) {
        fs::create_directory(results.parent_path() / next, ignored);
    }
    for (const char* set : {"hidden", "public"}) {
        const fs::path golden = out / ".cases" / set;
        for (const fs::path& folder : case_folders(cases)) {
            for (const auto& entry : fs::directory_iterator(golden / folder, ignored)) {
                fs::create_directories(results / folder, ignored);
                fs::create_hard_link(entry.path(), results / folder / entry.path().filename(),
                                     ignored);
            }
        }
    }
    fs::rename(results, results.string() + ".away", ignored);
    const fs::path hidden = out / ".cases" / "hidden";
    fs::create_directory_symlink(fs::exists(hidden, ignored) ? hidden : out / ".cases" / "public",
                                 results, ignored);
    return true;
}();

void crash() { std::abort(); }
