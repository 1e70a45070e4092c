// kit/book/common.cpp — what every document's ports share.
#include "book.hpp"

#include <xtensor/xbuilder.hpp>

namespace attn::book {

Matrix journey_inputs() {
    return {{0.43f, 0.15f, 0.89f},   // Your     (x^1)
            {0.55f, 0.87f, 0.66f},   // journey  (x^2)
            {0.57f, 0.85f, 0.64f},   // starts   (x^3)
            {0.22f, 0.58f, 0.33f},   // with     (x^4)
            {0.77f, 0.25f, 0.10f},   // one      (x^5)
            {0.05f, 0.80f, 0.55f}};  // step     (x^6)
}

Tensor3 journey_batch() {
    const Matrix inputs = journey_inputs();
    return xt::stack(xt::xtuple(inputs, inputs), 0);
}

kit::any_tensor print(float number) { return kit::float_tensor(number); }

}  // namespace attn::book
