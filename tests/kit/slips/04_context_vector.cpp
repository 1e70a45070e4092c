// tests/kit/slips/04_context_vector.cpp — solutions/04_context_vector.cpp with the slips
// students make in it, each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py runs them
// all). Without ATTN_SLIP it is the solution and must pass every test.
//
// The weighted sum as a loop over the tokens: its bounds and its indices.
// slip: first_row_skipped -> left out the first token
// slip: last_row_skipped -> left out the last token
// slip: reversed_weights -> paired the weights with the wrong tokens
// slip: divided_by_count -> divided the weighted sum by T
// slip: unweighted_sum -> added the inputs without their weights
// not yet named: assigned_not_added (`=` for `+=`: "3 of 3 values differ; worst at [1]: got
//   0.126491, expected 0.651482", no mistake and no diagnosis)
// The pipeline for one query: the scores' normalisation and the query's row.
// slip: raw_scores -> weighted by the raw scores
// slip: naive_weights -> normalised the scores by their sum instead of softmax
// slip: query_after -> used the next token as the query
// not yet named: softmax_naive_used (exercise 03's naive softmax: passes as done; no case has
//   scores large enough to overflow it)
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "slip.hpp"

#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

namespace attn {

Vector context_vector(const Matrix& inputs, const Vector& weights) {
    arguments::context_vector(inputs, weights);  // bad input -> a clear error

    const std::size_t T = inputs.shape(0);
    Vector context = xt::zeros<float>({inputs.shape(1)});
    if (slip("first_row_skipped")) {  // i starts at 1
        for (std::size_t i = 1; i < T; ++i) context += weights(i) * xt::row(inputs, i);
        return context;
    }
    if (slip("last_row_skipped")) {  // i < T - 1
        for (std::size_t i = 0; i < T - 1; ++i) context += weights(i) * xt::row(inputs, i);
        return context;
    }
    if (slip("reversed_weights")) {
        for (std::size_t i = 0; i < T; ++i) context += weights(T - 1 - i) * xt::row(inputs, i);
        return context;
    }
    if (slip("divided_by_count")) {  // an average, as if the weights did not sum to 1
        for (std::size_t i = 0; i < T; ++i) context += weights(i) * xt::row(inputs, i);
        return context / static_cast<float>(T);
    }
    if (slip("unweighted_sum")) {
        for (std::size_t i = 0; i < T; ++i) context += xt::row(inputs, i);
        return context;
    }
    if (slip("assigned_not_added")) {  // `=` where `+=` belongs: the last token's term only
        for (std::size_t i = 0; i < T; ++i) context = weights(i) * xt::row(inputs, i);
        return context;
    }
    for (std::size_t i = 0; i < T; ++i) {
        context += weights(i) * xt::row(inputs, i);
    }
    return context;
}

Vector context_vector_for_query(const Matrix& inputs, std::size_t query_index) {
    arguments::context_vector_for_query(inputs, query_index);  // bad input -> a clear error

    if (slip("query_after")) {  // query_index counted from 1
        const Vector query = xt::row(inputs, query_index + 1);
        return context_vector(inputs, softmax(dot_scores(inputs, query)));
    }
    const Vector query = xt::row(inputs, query_index);
    if (slip("raw_scores")) return context_vector(inputs, dot_scores(inputs, query));
    if (slip("naive_weights")) {
        return context_vector(inputs, normalize_by_sum(dot_scores(inputs, query)));
    }
    if (slip("softmax_naive_used")) {  // the naive form: the same on small scores
        return context_vector(inputs, softmax_naive(dot_scores(inputs, query)));
    }
    return context_vector(inputs, softmax(dot_scores(inputs, query)));
}

}  // namespace attn
