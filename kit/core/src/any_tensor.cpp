// kit/core/src/any_tensor.cpp — dtype names, shapes and values of an any_tensor.
#include "kit/any_tensor.hpp"

namespace attn::kit {

std::string dtype_name(const any_tensor& tensor) {
    switch (tensor.index()) {
        case 0:
            return "float32";
        case 1:
            return "int64";
        default:
            return "bool";
    }
}

std::vector<std::size_t> shape_of(const any_tensor& tensor) {
    return std::visit(
        [](const auto& t) { return std::vector<std::size_t>(t.shape().begin(), t.shape().end()); },
        tensor);
}

std::vector<double> values_of(const any_tensor& tensor) {
    return std::visit(
        [](const auto& t) {
            std::vector<double> values(t.size());
            for (std::size_t i = 0; i < t.size(); ++i) values[i] = static_cast<double>(t.data()[i]);
            return values;
        },
        tensor);
}

template any_tensor to_any_tensor(const xt::xtensor<float, 0>&);
template any_tensor to_any_tensor(const xt::xtensor<float, 1>&);
template any_tensor to_any_tensor(const xt::xtensor<float, 2>&);
template any_tensor to_any_tensor(const xt::xtensor<float, 3>&);
template any_tensor to_any_tensor(const xt::xtensor<float, 4>&);

}  // namespace attn::kit
