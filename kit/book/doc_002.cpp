// kit/book/doc_002.cpp — the multi-head attention tutorial.
#include "attn/multi_head_attention.hpp"
#include "book.hpp"
#include "kit/torch_generator.hpp"

#include <xtensor/xview.hpp>

namespace attn::book {
std::vector<Port> ports_002() {
    return {
        {"002 In [2]", "x_2 = xt::row(inputs, 1)",
         [] { return Prints{print(Vector(xt::row(journey_inputs(), 1)))}; }},
        {"002 In [6]",
         "TorchGenerator torch(123); MultiHeadAttentionWrapper mha(3, 2, 6, 2, false, torch); "
         "mha(batch)",
         [] {
             TorchGenerator torch(123);
             const MultiHeadAttentionWrapper mha(3, 2, 6, 2, false, torch);
             return Prints{print(mha(journey_batch()))};
         }},
        {"002 In [8]",
         "TorchGenerator torch(123); MultiHeadAttention mha(3, 2, 6, 2, false, torch); mha(batch)",
         [] {
             TorchGenerator torch(123);
             const MultiHeadAttention mha(3, 2, 6, 2, false, torch);
             return Prints{print(mha(journey_batch()))};
         }},
    };
}

}  // namespace attn::book
