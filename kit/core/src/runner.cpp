// kit/core/src/runner.cpp — cases run, results written, nothing compared.
#include "kit/runner.hpp"

#include "kit/cases.hpp"
#include "kit/npy.hpp"

#include <fstream>
#include <set>

namespace attn::kit {
namespace {

// The call's failure as error.txt, or, where it was an untouched stub (attn::not_implemented),
// as not_implemented.txt: the judge marks the case so from the file's name, never its words.
void write_error(const std::filesystem::path& folder, const std::string& failure,
                 bool stub = false) {
    std::filesystem::create_directories(folder);
    std::ofstream(folder / (stub ? "not_implemented.txt" : "error.txt")) << failure << '\n';
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
    void on_throw(const call_failure& failure, const char*, int) override {
        write_error(folder_, failure.line, failure.stub);
    }

private:
    std::filesystem::path folder_;
};

// A law's variant of a case (kit/laws.hpp): writes only the law's output, as
// law.<law>.<output>.npy, or the call's failure as law.<law>.error.txt, beside the case's own.
class variant_context : public case_context {
public:
    variant_context(const golden_store& store, const case_entry& entry, const case_law& law,
                    std::filesystem::path folder)
        : case_context(store, entry), law_(law), folder_(std::move(folder)) {
        serve_variant_of(law_);
    }

protected:
    void on_result(const std::string& name, const std::string&, const char*, int,
                   const any_tensor& value) override {
        if (name == law_.output) write_npy(folder_ / (law_output_name(law_) + ".npy"), value);
    }
    void on_throw(const call_failure& failure, const char*, int) override {
        write_law_error(failure.line);
    }

public:
    void write_law_error(const std::string& failure) const {
        std::ofstream(folder_ / ("law." + law_.name + ".error.txt")) << failure << '\n';
    }

private:
    const case_law& law_;
    std::filesystem::path folder_;
};

// Each law's variant of a case whose own run did not throw.
void run_variants(const case_kind& kind, const golden_store& cases, const case_entry& entry,
                  const std::filesystem::path& folder) {
    for (const case_law& law : entry.laws) {
        variant_context context(cases, entry, law, folder);
        try {
            kind.run(context);
        } catch (const case_stopped&) {
            // on_throw wrote the failure
        } catch (const std::exception& error) {  // the variant could not be made
            context.write_law_error(error.what());
        }
    }
}

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
                run_variants(kind, cases, *entry, folder);
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
