// kit/book/doc_004.cpp — the book's text of section 3.4.2 (Listings 3.1 and 3.2).
#include "attn/self_attention.hpp"
#include "book.hpp"
#include "kit/torch_generator.hpp"

namespace attn::book {

std::vector<Port> ports_004() {
    return {
        {"004 text",
         "TorchGenerator(123): SelfAttention_v1(3, 2)(inputs); TorchGenerator(789): "
         "SelfAttention_v2(3, 2)(inputs)",
         [] {
             TorchGenerator first(123), second(789);
             const SelfAttention_v1 sa_v1(3, 2, first);
             const SelfAttention_v2 sa_v2(3, 2, false, second);
             return Prints{print(sa_v1(journey_inputs())), print(sa_v2(journey_inputs()))};
         }},
    };
}

}  // namespace attn::book
