// kit/core/src/cases.cpp — the registry of ATTN_CASE bodies.
#include "kit/cases.hpp"

#include <algorithm>

namespace attn::kit {
namespace {

std::vector<case_kind>& registry() {
    static std::vector<case_kind> kinds;  // filled during static initialisation
    return kinds;
}

}  // namespace

std::string case_context::input_path(const std::string& name) const {
    const auto& inputs = entry_.inputs;
    if (std::find(inputs.begin(), inputs.end(), name) == inputs.end()) {
        throw golden_error("case " + entry_.path + " has no input named " + name +
                           "; the test and tools/record disagree");
    }
    return entry_.file(name);
}

attn::StateDict state_dict_of(const golden_store& store, const case_entry& entry,
                              const std::string& prefix) {
    attn::StateDict state;
    for (const std::string& name : entry.inputs) {
        if (name.compare(0, prefix.size(), prefix) != 0) continue;
        if (store.file(entry.file(name)).dtype != "float32") continue;
        state.set(name.substr(prefix.size()), std::get<float_tensor>(store.load(entry.file(name))));
    }
    return state;
}

attn::StateDict case_context::state_dict(const std::string& prefix) {
    attn::StateDict state = state_dict_of(store_, entry_, prefix);
    for (const auto& [name, tensor] : state.tensors()) {
        loaded_.push_back({prefix + name, shape_string(tensor.shape())});
    }
    return state;
}

const std::vector<case_kind>& case_kinds() { return registry(); }

bool register_case_kind(case_kind kind) {
    registry().push_back(std::move(kind));
    return true;
}

namespace {
std::vector<case_calls>& calls_registry() {
    static std::vector<case_calls> calls;
    return calls;
}
}  // namespace

const std::vector<case_calls>& calls_between_kinds() { return calls_registry(); }

bool register_case_calls(case_calls calls) {
    calls_registry().push_back(std::move(calls));
    return true;
}

void run_case(const case_kind& kind, case_context& context) {
    try {
        kind.run(context);
    } catch (const case_stopped&) {
        // The code under test threw; on_throw has reported it.
    }
}

}  // namespace attn::kit
