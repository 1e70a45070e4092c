// kit/api/module.cpp — the bodies of include/attn/module.hpp: StateDict and the two
// ParameterSources.
//
// Compiled once into attn_api, for the reason kit/api/arguments.cpp gives.
#include "attn/module.hpp"

#include "attn/errors.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace attn {

void StateDict::set(const std::string& name, Parameter tensor) {
    tensors_[name] = std::move(tensor);
}

bool StateDict::contains(const std::string& name) const { return tensors_.count(name) != 0; }

const Parameter& StateDict::get(const std::string& name) const {
    const auto found = tensors_.find(name);
    if (found == tensors_.end()) {
        std::string known;
        for (const auto& [key, tensor] : tensors_) known += (known.empty() ? "" : ", ") + key;
        throw shape_error("state_dict has no " + name +
                          " (it has: " + (known.empty() ? "nothing" : known) + ")");
    }
    return found->second;
}

StateDict StateDict::under(const std::string& prefix) const {
    StateDict part;
    for (const auto& [key, tensor] : tensors_) {
        if (key.compare(0, prefix.size(), prefix) == 0) part.set(key.substr(prefix.size()), tensor);
    }
    return part;
}

void StateDict::set_all(const std::string& prefix, const StateDict& part) {
    for (const auto& [key, tensor] : part.tensors()) set(prefix + key, tensor);
}

Parameter FromStateDict::parameter(const std::string& name, const Shape& shape, const Init&) {
    const Parameter& tensor = state_.get(name);
    if (Shape(tensor.shape().begin(), tensor.shape().end()) != shape) {
        throw shape_error("the module asks for " + name + " of shape " + shape_string(shape) +
                          ", but the state_dict's has shape " + shape_string(tensor.shape()) +
                          ": the module's sizes differ from the recorded module's");
    }
    return tensor;
}

namespace {

// splitmix64's finaliser.
std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

std::uint64_t fnv1a64(const std::string& text) {
    std::uint64_t hash = 0xCBF29CE484222325ULL;
    for (const unsigned char c : text) hash = (hash ^ c) * 0x100000001B3ULL;
    return hash;
}

}  // namespace

Parameter hashed_uniform(std::uint64_t seed, const std::string& name, const Shape& shape, float low,
                         float high) {
    Parameter tensor(shape);
    const std::uint64_t key = fnv1a64(name);
    const double width = static_cast<double>(high) - static_cast<double>(low);
    for (std::size_t i = 0; i < tensor.size(); ++i) {
        const std::uint64_t z = mix(key ^ mix(seed + 0x9E3779B97F4A7C15ULL * (i + 1)));
        const double unit = static_cast<double>(z >> 40) / 16777216.0;  // [0, 1), 24 bits
        tensor.flat(i) = static_cast<float>(static_cast<double>(low) + width * unit);
    }
    return tensor;
}

Parameter HashedUniform::parameter(const std::string& name, const Shape& shape, const Init& init) {
    return hashed_uniform(seed_, name, shape, init.low(), init.high());
}

}  // namespace attn
