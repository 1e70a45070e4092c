// attn/module.hpp — what every module shares: its parameters under PyTorch's names.
//
// A PyTorch module keeps its tensors in named attributes, and state_dict() lists them by
// dotted path: a CausalAttention has "W_query.weight", "W_query.bias" (with qkv_bias=True),
// ..., and the buffer "mask"; a MultiHeadAttentionWrapper's heads are "heads.0.W_query.weight",
// "heads.1.W_query.weight", .... The kit's modules use the same names, so one recorded set of
// weights loads into every exercise, case and track the same way.
//
// Every module of the kit is a small value type written like its nn.Module:
//   - its parameters are public members with PyTorch's names and shapes (W_query, out_proj);
//   - one constructor takes those parameters and checks their shapes (a wrong shape throws
//     attn::shape_error naming it); another takes the sizes of __init__ and a
//     ParameterSource, as `torch.manual_seed(123); CausalAttention(d_in, d_out, ...)` does;
//   - forward(x) is the exercise, and module(x) calls it, as in PyTorch;
//   - state_dict() returns its tensors under PyTorch's names.
// Where the parameters come from is the ParameterSource's business:
//   FromStateDict   a state_dict recorded from PyTorch (a case's files, "W_query.weight.npy")
//   HashedUniform   a rule both PyTorch's side and C++ compute, element by element, so a
//                   GPT-2-sized module (2.36 M parameters) needs no file at all
// The bodies of the functions declared here are in kit/api/module.cpp.
#pragma once

#include "attn/errors.hpp"
#include "attn/tensor.hpp"

#include <xtensor/xarray.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace attn {

using Parameter = xt::xarray<float>;  // a parameter or buffer of any rank
using Shape = std::vector<std::size_t>;

// A module's tensors by the keys of PyTorch's state_dict(), in key order.
class StateDict {
public:
    void set(const std::string& name, Parameter tensor);
    bool contains(const std::string& name) const;
    const std::map<std::string, Parameter>& tensors() const { return tensors_; }

    // The tensor `name`: "state_dict has no W_query.weight (it has: W_key.weight, ...)"
    // otherwise.
    const Parameter& get(const std::string& name) const;

    // get(name) as a tensor of rank N: "state_dict's W_query.bias has shape (2, 3), but is
    // used as a 1-D tensor" otherwise.
    template <std::size_t N>
    xt::xtensor<float, N> at(const std::string& name) const {
        const Parameter& tensor = get(name);
        if (tensor.dimension() != N) {
            throw shape_error("state_dict's " + name + " has shape " +
                              shape_string(tensor.shape()) + ", but is used as a " +
                              std::to_string(N) + "-D tensor");
        }
        return tensor;
    }

    // The entries under `prefix` ("heads.0."), with the prefix taken off their names.
    StateDict under(const std::string& prefix) const;

    // Adds every entry of `part` under `prefix`: a module's state_dict holds its children's.
    void set_all(const std::string& prefix, const StateDict& part);

private:
    std::map<std::string, Parameter> tensors_;
};

// How PyTorch's __init__ draws a parameter, for a ParameterSource that imitates it.
struct Init {
    enum class Rule {
        rand,           // torch.rand(shape): uniform in [0, 1)
        linear_weight,  // nn.Linear's weight: kaiming_uniform_(a=sqrt(5)), +-1/sqrt(fan_in)
        linear_bias,    // nn.Linear's bias: uniform_(-1/sqrt(fan_in), 1/sqrt(fan_in))
    };
    Rule rule = Rule::rand;
    std::size_t fan_in = 0;  // a Linear's in_features

    static Init rand() { return {Rule::rand, 0}; }
    static Init linear_weight(std::size_t fan_in) { return {Rule::linear_weight, fan_in}; }
    static Init linear_bias(std::size_t fan_in) { return {Rule::linear_bias, fan_in}; }

    // The range [low, high) with the bound 1/sqrt(fan_in) computed in float32: HashedUniform's
    // rule (tools/recorder/init.py computes the same). PyTorch's own bound is computed in
    // double; TorchGenerator uses that one.
    float high() const {
        if (rule == Rule::rand) return 1.0f;
        return fan_in == 0 ? 0.0f : 1.0f / std::sqrt(static_cast<float>(fan_in));
    }
    float low() const { return rule == Rule::rand ? 0.0f : -high(); }
};

// Where a module built from its sizes gets its parameters' values. A module asks for its
// parameters in the order its PyTorch __init__ creates them, so a source that draws from a
// generator (TorchGenerator) draws the same numbers PyTorch does.
class ParameterSource {
public:
    virtual ~ParameterSource() = default;

    // The parameter `name` ("heads.1.W_key.weight") of `shape`, which PyTorch draws by `init`.
    virtual Parameter parameter(const std::string& name, const Shape& shape, const Init& init) = 0;
};

// The parameters of a state_dict, which must have the shapes the module asks for (a module
// built for other sizes than the recorded one's says so, naming the tensor).
class FromStateDict : public ParameterSource {
public:
    explicit FromStateDict(StateDict state) : state_(std::move(state)) {}

    Parameter parameter(const std::string& name, const Shape& shape, const Init&) override;

private:
    StateDict state_;
};

// ---- HashedUniform: parameters from a rule, the same in C++ and in tools/recorder ---------
// Element i (row-major) of the tensor `name` at `seed` is
//   z = mix(fnv1a64(name) ^ mix(seed + 0x9E3779B97F4A7C15 * (i + 1)))
//   value = float32(low + (high - low) * (z >> 40) / 2^24)           computed in double
// with mix, splitmix64's finaliser. tools/recorder/init.py computes the same numbers, and
// the kit's test_init checks that both agree. Not PyTorch's generator: a module built at
// HashedUniform(123) is not the notebook's at torch.manual_seed(123), but it is the one the
// recorder builds at HashedUniform(123), which is all a golden needs.
// The tensor `name` of `shape` drawn by the rule above, uniform in [low, high).
Parameter hashed_uniform(std::uint64_t seed, const std::string& name, const Shape& shape, float low,
                         float high);

class HashedUniform : public ParameterSource {
public:
    explicit HashedUniform(std::uint64_t seed) : seed_(seed) {}

    Parameter parameter(const std::string& name, const Shape& shape, const Init& init) override;

private:
    std::uint64_t seed_;
};

}  // namespace attn
