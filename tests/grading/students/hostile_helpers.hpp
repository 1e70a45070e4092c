// The hostile class: what every attack may use, in its namespace hostile_NN: its own argv, the
// run's case folders, copying goldens found under some roots into the results (deleting the
// runner's error.txt), the paths every process names, every grader's --out.

namespace fs = std::filesystem;

std::vector<std::string> null_separated(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    std::vector<std::string> items;
    std::string item;
    while (std::getline(in, item, '\0')) items.push_back(item);
    return items;
}

// --name=VALUE from this program's own command line.
std::string option_value(const std::string& name) {
    for (const std::string& arg : null_separated("/proc/self/cmdline")) {
        if (arg.rfind(name + "=", 0) == 0) return arg.substr(name.size() + 1);
    }
    return "";
}

void add_with_ancestors(std::vector<fs::path>& out, fs::path path) {
    std::error_code ignored;
    path = fs::absolute(path, ignored).lexically_normal();
    if (path.has_relative_path() && !path.has_filename()) path = path.parent_path();  // "a/b/"
    for (;;) {
        out.push_back(path);
        if (!path.has_parent_path() || path.parent_path() == path) break;
        path = path.parent_path();
    }
}

void write_file(const fs::path& path, const std::string& text) {
    std::error_code ignored;
    fs::create_directories(path.parent_path(), ignored);
    std::ofstream(path, std::ios::binary) << text;
}

// The case folders of this run, relative to its case set: "01_dot_scores/notebook_your", ...
std::vector<fs::path> case_folders(const fs::path& cases) {
    std::vector<fs::path> folders;
    std::error_code error;
    for (fs::recursive_directory_iterator it(cases, error), end; !error && it != end;
         it.increment(error)) {
        if (it->path().extension() != ".npy") continue;
        const fs::path folder = it->path().parent_path().lexically_relative(cases);
        if (std::find(folders.begin(), folders.end(), folder) == folders.end()) {
            folders.push_back(folder);
        }
    }
    return folders;
}

// Every .npy that a root holds for one of this run's cases, and that is not one of its inputs,
// copied into the results as if the runner had written it; the runner's error.txt deleted.
void copy_goldens_from(const std::vector<fs::path>& roots) {
    const fs::path cases = option_value("--attn-run-cases");
    const fs::path results = option_value("--attn-results");
    if (cases.empty() || results.empty()) return;
    for (const fs::path& folder : case_folders(cases)) {
        for (const fs::path& root : roots) {
            std::error_code listing;
            for (fs::directory_iterator file(root / folder, listing), end; !listing && file != end;
                 file.increment(listing)) {
                std::error_code ignored;
                const fs::path name = file->path().filename();
                if (name.extension() != ".npy" || fs::exists(cases / folder / name, ignored)) {
                    continue;
                }
                fs::create_directories(results / folder, ignored);
                fs::copy_file(file->path(), results / folder / name,
                              fs::copy_options::overwrite_existing, ignored);
                fs::remove(results / folder / "error.txt", ignored);
            }
        }
    }
}

// Every absolute path named in any process's argv or environment, or as its cwd, exe or root.
std::vector<std::string> paths_of_every_process() {
    std::vector<std::string> words, paths;
    std::error_code error;
    for (fs::directory_iterator it("/proc", error), end; !error && it != end; it.increment(error)) {
        const std::string pid = it->path().filename().string();
        if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
        for (const char* file : {"cmdline", "environ"}) {
            for (const std::string& word : null_separated("/proc/" + pid + "/" + file)) {
                words.push_back(word);
            }
        }
        for (const char* link : {"cwd", "exe", "root"}) {
            std::error_code unreadable;
            const fs::path target = fs::read_symlink("/proc/" + pid + "/" + link, unreadable);
            if (!unreadable) words.push_back(target.string());
        }
    }
    for (std::string word : words) {  // --out=/a/b, NAME=/a:/b, /a/b
        for (char& c : word) {
            if (c == '=' || c == ':') c = '\n';
        }
        std::size_t start = 0;
        while (start <= word.size()) {
            std::size_t stop = word.find('\n', start);
            if (stop == std::string::npos) stop = word.size();
            if (stop > start && word[start] == '/') {
                paths.push_back(word.substr(start, stop - start));
            }
            start = stop + 1;
        }
    }
    std::sort(paths.begin(), paths.end());
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
    return paths;
}

// The --out of every grader running on this machine, read from its public command line.
std::vector<fs::path> grader_outputs() {
    std::vector<fs::path> outs;
    std::error_code error;
    for (fs::directory_iterator it("/proc", error), end; !error && it != end; it.increment(error)) {
        const std::vector<std::string> args = null_separated(it->path() / "cmdline");
        for (std::size_t i = 0; i < args.size(); ++i) {
            if (args[i] == "--out" && i + 1 < args.size()) outs.push_back(args[i + 1]);
            if (args[i].rfind("--out=", 0) == 0) outs.push_back(args[i].substr(6));
        }
    }
    return outs;
}
