// kit/book/doc_000.cpp — the book's exercise solutions 3.1-3.3 (exercise-solutions.ipynb).
#include "attn/multi_head_attention.hpp"
#include "attn/self_attention.hpp"
#include "book.hpp"
#include "kit/torch_generator.hpp"

namespace attn::book {

std::vector<Port> ports_000() {
    return {
        {"000 In [8]",
         "TorchGenerator torch(123); SelfAttention_v1 sa_v1(3, 2, torch); sa_v1(inputs)",
         [] {
             TorchGenerator torch(123);  // torch.manual_seed(123)
             const SelfAttention_v1 sa_v1(3, 2, torch);
             return Prints{print(sa_v1(journey_inputs()))};
         }},
        {"000 In [9]",
         "TorchGenerator torch(123); SelfAttention_v2 sa_v2(3, 2, false, torch); sa_v2(inputs)",
         [] {
             TorchGenerator torch(123);
             const SelfAttention_v2 sa_v2(3, 2, false, torch);
             return Prints{print(sa_v2(journey_inputs()))};
         }},
        // The solution's own class: one projection split into heads, no mask, fc_out.
        {"000 In [12]",
         "TorchGenerator torch(42); inputs = torch.randn<3>({1, 5, 4}); "
         "UnmaskedMultiHeadAttention mha(4, 2, 2, torch); mha(inputs)",
         [] {
             TorchGenerator torch(42);
             const Tensor3 inputs = torch.randn<3>({1, 5, 4});  // drawn before the module
             const UnmaskedMultiHeadAttention mha(4, 2, 2, torch);
             return Prints{print(mha(inputs))};
         }},
    };
}

}  // namespace attn::book
