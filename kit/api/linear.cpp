// kit/api/linear.cpp — the bodies of include/attn/linear.hpp's Linear.
//
// Compiled once into attn_api, for the reason kit/api/arguments.cpp gives.
#include "attn/linear.hpp"

#include <cstddef>
#include <string>

namespace attn {

Linear Linear::make(ParameterSource& source, const std::string& name, std::size_t d_in,
                    std::size_t d_out, bool bias) {
    Linear layer{source.parameter(name + ".weight", {d_out, d_in}, Init::linear_weight(d_in)), {}};
    if (bias) layer.bias = source.parameter(name + ".bias", {d_out}, Init::linear_bias(d_in));
    return layer;
}

Linear Linear::load(const StateDict& state, const std::string& name) {
    Linear layer{state.at<2>(name + ".weight"), {}};
    if (state.contains(name + ".bias")) layer.bias = state.at<1>(name + ".bias");
    return layer;
}

void Linear::save(StateDict& state, const std::string& name) const {
    state.set(name + ".weight", weight);
    if (has_bias()) state.set(name + ".bias", bias);
}

}  // namespace attn
