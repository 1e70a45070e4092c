// steals_goldens' 04: roots() are the classmates' folders (the class's absolute path, known when
// the class was written), their kit copies' reference_data and fake results.

std::vector<fs::path> roots() {
    const fs::path submissions = MAKE_CLASS_DIR;
    std::vector<fs::path> found;
    std::error_code error;
    for (fs::directory_iterator it(submissions, error), end; !error && it != end;
         it.increment(error)) {
        for (const char* name : {"", "reference_data", "results", "build/reference_data"}) {
            found.push_back(it->path() / name);
        }
    }
    return found;
}
