// kit/core/src/runner.cpp — cases run, results written, nothing compared.
#include "kit/runner.hpp"

#include "kit/cases.hpp"
#include "kit/npy.hpp"

#include <fstream>
#include <set>

namespace attn::kit {
namespace {

void write_error(const std::filesystem::path& folder, const std::string& failure) {
    std::filesystem::create_directories(folder);
    std::ofstream(folder / "error.txt") << failure << '\n';
}

class recording_context : public case_context {
public:
    recording_context(const golden_store& store, const case_entry& entry,
                      std::filesystem::path folder)
        : case_context(store, entry), folder_(std::move(folder)) {}

protected:
    void on_result(const std::string& name, const std::string&, const char*, int,
                   const any_tensor& value) override {
        write_npy(folder_ / (name + ".npy"), value);
    }
    void on_throw(const std::string& failure, bool, const char*, int) override {
        write_error(folder_, failure);
    }

private:
    std::filesystem::path folder_;
};

}  // namespace

runner_summary run_cases(const golden_store& cases, const std::filesystem::path& out,
                         const std::vector<std::string>& only_cases) {
    runner_summary summary;
    std::set<std::string> wanted(only_cases.begin(), only_cases.end());
    std::filesystem::create_directories(out);  // current-case is written before any case folder
    for (const case_kind& kind : case_kinds()) {
        for (const case_entry* entry : cases.cases(kind.exercise)) {
            if (entry->kind != kind.kind) continue;
            if (!only_cases.empty() && wanted.erase(entry->path) == 0) continue;
            ++summary.cases;
            // Truncated and closed before the case starts: after a crash or a time-out it
            // names the case that was running.
            std::ofstream(out / "current-case", std::ios::trunc) << entry->path << '\n';
            const auto folder = out / entry->path;
            std::filesystem::create_directories(folder);
            recording_context context(cases, *entry, folder);
            try {
                kind.run(context);
            } catch (const case_stopped&) {
                ++summary.threw;
            } catch (const std::exception& error) {  // the case could not load its inputs
                write_error(folder, error.what());
                ++summary.threw;
            }
        }
    }
    summary.not_found.assign(wanted.begin(), wanted.end());
    return summary;
}

}  // namespace attn::kit
