// kit/any_tensor.hpp — a tensor of one of the three dtypes a golden may have.
//
// Goldens and results are float32 (values), int64 (parameter counts, byte sizes, FLOPs,
// dims and indices; compared exactly) or bool (masks; compared exactly), as in PyTorch.
#pragma once

#include <xtensor/xarray.hpp>
#include <xtensor/xeval.hpp>
#include <xtensor/xtensor.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace attn::kit {

using float_tensor = xt::xarray<float>;
using int_tensor = xt::xarray<std::int64_t>;
using bool_tensor = xt::xarray<bool>;
using any_tensor = std::variant<float_tensor, int_tensor, bool_tensor>;

// "float32", "int64" or "bool": the names MANIFEST.json and PyTorch use.
std::string dtype_name(const any_tensor& tensor);

std::vector<std::size_t> shape_of(const any_tensor& tensor);

// Every value as a double, in row-major order (exact for the kit's int64 counts < 2^53).
std::vector<double> values_of(const any_tensor& tensor);

// A container or lazy xtensor expression evaluated into a container; a scalar unchanged.
template <class T>
auto evaluated(T&& value) {
    if constexpr (xt::is_xexpression<std::decay_t<T>>::value) {
        return xt::eval(std::forward<T>(value));
    } else {
        return std::decay_t<T>(std::forward<T>(value));
    }
}

// A result of the code under test as an any_tensor: floating-point values become float32,
// bool stays bool, any other integer becomes int64. Scalars become 0-d tensors.
template <class T>
any_tensor to_any_tensor(const T& value) {
    if constexpr (xt::is_xexpression<T>::value) {
        using value_type = typename T::value_type;
        if constexpr (std::is_same_v<value_type, bool>) {
            return bool_tensor(value);
        } else if constexpr (std::is_floating_point_v<value_type>) {
            return float_tensor(xt::cast<float>(value));
        } else {
            return int_tensor(xt::cast<std::int64_t>(value));
        }
    } else if constexpr (std::is_same_v<T, bool>) {
        return bool_tensor(value);
    } else if constexpr (std::is_floating_point_v<T>) {
        return float_tensor(static_cast<float>(value));
    } else {
        static_assert(std::is_integral_v<T>, "a result must be a tensor or a number");
        return int_tensor(static_cast<std::int64_t>(value));
    }
}

// Compiled once, in any_tensor.cpp, for the tensors the exercises return: each test file
// would otherwise compile its own copy, on the cold build a new student waits for.
extern template any_tensor to_any_tensor(const xt::xtensor<float, 0>&);
extern template any_tensor to_any_tensor(const xt::xtensor<float, 1>&);
extern template any_tensor to_any_tensor(const xt::xtensor<float, 2>&);
extern template any_tensor to_any_tensor(const xt::xtensor<float, 3>&);
extern template any_tensor to_any_tensor(const xt::xtensor<float, 4>&);

}  // namespace attn::kit
