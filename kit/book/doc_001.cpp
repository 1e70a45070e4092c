// kit/book/doc_001.cpp — the book's chapter 3 notebook (ch03.ipynb), sections 3.3 to 3.6, in
// the seed document's cell numbering.
#include "attn/causal_attention.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/self_attention.hpp"
#include "attn/simple_attention.hpp"
#include "attn/trainable_attention.hpp"
#include "book.hpp"
#include "kit/torch_generator.hpp"

#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include <cmath>

namespace attn::book {
namespace {

Vector row(const Matrix& m, std::size_t i) { return xt::row(m, i); }

// tensor.sum() of a few floats, added in order as PyTorch's CPU sum does for so few.
float sum(const Vector& v) {
    float total = 0.0f;
    for (float x : v) total += x;
    return total;
}

// §3.4.1 at torch.manual_seed(42): three torch.rand(3, 2) matrices, drawn in this order.
struct Weights {
    Matrix W_query, W_key, W_value;
};
Weights seed_42_weights() {
    TorchGenerator torch(42);
    Matrix W_query = torch.rand({3, 2});
    Matrix W_key = torch.rand({3, 2});
    Matrix W_value = torch.rand({3, 2});
    return {W_query, W_key, W_value};
}

// §3.5.1's starting point: the scores of SelfAttention_v2 at torch.manual_seed(42),
// queries @ keys.T with queries = sa_v2.W_query(inputs), keys = sa_v2.W_key(inputs).
Matrix sa_v2_scores() {
    TorchGenerator torch(42);
    const SelfAttention_v2 sa_v2(3, 2, false, torch);
    const Matrix inputs = journey_inputs();
    const Matrix queries = project_rows(inputs, xt::transpose(sa_v2.W_query.weight));
    const Matrix keys = project_rows(inputs, xt::transpose(sa_v2.W_key.weight));
    return project_rows(queries, xt::transpose(keys));
}

Matrix sa_v2_weights() { return softmax(Matrix(sa_v2_scores() / std::sqrt(2.0f)), -1); }

const char* const stale_masked =
    "001's CausalAttention.forward (In [33]) softmaxes the global `masked` of In [27] instead "
    "of its own scores, so every head attends with sa_v2's weights; C++ prints what the class "
    "means to compute (exercise 15 tells the story)";

const char* const dropout_pattern =
    "prints the pattern of torch.nn.Dropout at seed 42, which differs between PyTorch builds "
    "(with MKL or without); exercise 14 takes the keep mask as an input instead";

}  // namespace

std::vector<Port> ports_001() {
    return {
        {"001 In [1]", "inputs", [] { return Prints{print(journey_inputs())}; }},
        {"001 In [2]", "dot_scores(inputs, row(inputs, 1))",
         [] {
             const Matrix inputs = journey_inputs();
             return Prints{print(dot_scores(inputs, row(inputs, 1)))};
         }},
        {"001 In [3]", "w = normalize_by_sum(scores); w, sum(w)",
         [] {
             const Matrix inputs = journey_inputs();
             const Vector weights = normalize_by_sum(dot_scores(inputs, row(inputs, 1)));
             return Prints{print(weights), print(sum(weights))};
         }},
        {"001 In [4]", "w = softmax(scores); w, sum(w)",
         [] {
             const Matrix inputs = journey_inputs();
             const Vector weights = softmax(dot_scores(inputs, row(inputs, 1)));
             return Prints{print(weights), print(sum(weights))};
         }},
        {"001 In [5]", "each row(inputs, i); context_vector(inputs, softmax(scores))",
         [] {
             const Matrix inputs = journey_inputs();
             Prints prints;
             for (std::size_t i = 0; i < inputs.shape(0); ++i)
                 prints.push_back(print(row(inputs, i)));
             prints.push_back(
                 print(context_vector(inputs, softmax(dot_scores(inputs, row(inputs, 1))))));
             return prints;
         }},
        {"001 In [6]", "context_vector_for_query(inputs, 0)",
         [] { return Prints{print(context_vector_for_query(journey_inputs(), 0))}; }},
        {"001 In [7]", "attention_scores_loops(inputs)",
         [] { return Prints{print(attention_scores_loops(journey_inputs()))}; }},
        {"001 In [8]", "attention_scores_matmul(inputs)",
         [] { return Prints{print(attention_scores_matmul(journey_inputs()))}; }},
        {"001 In [9]", "softmax(attention_scores_matmul(inputs), -1)",
         [] { return Prints{print(softmax(attention_scores_matmul(journey_inputs()), -1))}; }},
        {"001 In [10]", "all_context_vectors(inputs)",
         [] { return Prints{print(all_context_vectors(journey_inputs()))}; }},
        {"001 In [13]",
         "TorchGenerator(42): W_query = rand({3, 2}), ...; project_token(x_2, W_query)",
         [] {
             const Weights w = seed_42_weights();
             return Prints{print(project_token(row(journey_inputs(), 1), w.W_query))};
         }},
        {"001 In [15]", "attention_scores(query_2, project_rows(inputs, W_key))(1)",
         [] {
             const Weights w = seed_42_weights();
             const Matrix inputs = journey_inputs();
             const Vector query_2 = project_token(row(inputs, 1), w.W_query);
             return Prints{print(attention_scores(query_2, project_rows(inputs, w.W_key))(1))};
         }},
        {"001 In [16]", "attention_scores(query_2, keys)",
         [] {
             const Weights w = seed_42_weights();
             const Matrix inputs = journey_inputs();
             const Vector query_2 = project_token(row(inputs, 1), w.W_query);
             return Prints{print(attention_scores(query_2, project_rows(inputs, w.W_key)))};
         }},
        {"001 In [17]", "scaled_attention_weights(attention_scores(query_2, keys), 2)",
         [] {
             const Weights w = seed_42_weights();
             const Matrix inputs = journey_inputs();
             const Vector query_2 = project_token(row(inputs, 1), w.W_query);
             const Vector scores = attention_scores(query_2, project_rows(inputs, w.W_key));
             return Prints{print(scaled_attention_weights(scores, 2))};
         }},
        {"001 In [18]", "weighted_values(attn_weights_2, project_rows(inputs, W_value))",
         [] {
             const Weights w = seed_42_weights();
             const Matrix inputs = journey_inputs();
             const Vector query_2 = project_token(row(inputs, 1), w.W_query);
             const Vector scores = attention_scores(query_2, project_rows(inputs, w.W_key));
             return Prints{print(weighted_values(scaled_attention_weights(scores, 2),
                                                 project_rows(inputs, w.W_value)))};
         }},
        {"001 In [20]",
         "TorchGenerator torch(42); SelfAttention_v1 sa_v1(3, 2, torch); sa_v1(inputs)",
         [] {
             TorchGenerator torch(42);
             const SelfAttention_v1 sa_v1(3, 2, torch);
             return Prints{print(sa_v1(journey_inputs()))};
         }},
        {"001 In [22]",
         "TorchGenerator torch(42); SelfAttention_v2 sa_v2(3, 2, false, torch); sa_v2(inputs)",
         [] {
             TorchGenerator torch(42);
             const SelfAttention_v2 sa_v2(3, 2, false, torch);
             return Prints{print(sa_v2(journey_inputs()))};
         }},
        {"001 In [23]", "softmax(queries @ keys.T / sqrt(2), -1) of sa_v2",
         [] { return Prints{print(sa_v2_weights())}; }},
        {"001 In [24]", "tril_mask(6)", [] { return Prints{print(tril_mask(6))}; }},
        {"001 In [25]", "apply_tril_mask(attn_weights)",
         [] { return Prints{print(apply_tril_mask(sa_v2_weights()))}; }},
        {"001 In [26]", "mask_and_renormalize(attn_weights)",
         [] { return Prints{print(mask_and_renormalize(sa_v2_weights()))}; }},
        {"001 In [27]", "mask_future(attn_scores)",
         [] { return Prints{print(mask_future(sa_v2_scores()))}; }},
        {"001 In [28]", "causal_attention_weights(attn_scores, 2)",
         [] { return Prints{print(causal_attention_weights(sa_v2_scores(), 2))}; }},
        {"001 In [29]", "future_mask(6)", [] { return Prints{print(future_mask(6))}; }},
        {"001 In [30]", "torch.nn.Dropout(0.5)(torch.ones(6, 6))", {}, 4, "", "", dropout_pattern},
        {"001 In [31]", "dropout(attn_weights)", {}, 4, "", "", dropout_pattern},
        // In [35], [36] and [38] draw from one generator: only In [35] seeds it.
        {"001 In [35]",
         "TorchGenerator torch(42); MultiHeadAttentionWrapper mha(3, 2, 6, 2, false, torch); "
         "mha(batch)",
         [] {
             TorchGenerator torch(42);
             const MultiHeadAttentionWrapper mha(3, 2, 6, 2, false, torch);
             return Prints{print(mha(journey_batch()))};
         },
         4, stale_masked},
        {"001 In [36]",
         "after In [35]'s draws: MultiHeadAttentionWrapper mha(3, 1, 6, 2, false, torch); "
         "mha(batch)",
         [] {
             TorchGenerator torch(42);
             const MultiHeadAttentionWrapper in_35(3, 2, 6, 2, false, torch);
             const MultiHeadAttentionWrapper mha(3, 1, 6, 2, false, torch);
             return Prints{print(mha(journey_batch()))};
         },
         4, stale_masked},
        {"001 In [38]",
         "after In [36]'s draws: MultiHeadAttention mha(3, 2, 6, 2, false, torch); mha(batch)",
         [] {
             TorchGenerator torch(42);
             const MultiHeadAttentionWrapper in_35(3, 2, 6, 2, false, torch);
             const MultiHeadAttentionWrapper in_36(3, 1, 6, 2, false, torch);
             const MultiHeadAttention mha(3, 2, 6, 2, false, torch);
             return Prints{print(mha(journey_batch()))};
         }},
    };
}

}  // namespace attn::book
