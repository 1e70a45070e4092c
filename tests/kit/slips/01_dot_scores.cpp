// tests/kit/slips/01_dot_scores.cpp — solutions/01_dot_scores.cpp with the slips students make
// in it, each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py runs them all). Without
// ATTN_SLIP it is the solution and must pass every test.
//
// The dot product written out as a loop over k, as most students write it first: the loops'
// bounds, the accumulator and what is multiplied.
// slip: loop_to_d_in -> looped over d_in inputs instead of T
// slip: first_score_unfilled -> first element never filled
// slip: last_product_skipped -> last product left out
// slip: running_sum -> running total
// slip: int_accumulator -> integer accumulator
// slip: self_dot -> dotted each input with itself
// slip: added -> added query and input
// not yet named: cosine_similarity (dividing by both lengths: the status line gives the worst
//   value only, "6 of 6 values differ; worst at [1]: got 1, expected 1.495")
// not yet named: query_indexed_by_i (query(i) for query(k): "dot_scores(inputs, query) threw
//   std::runtime_error: index 3 is out of bounds for axis 0 (size 3)", true but no mistake)
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/simple_attention.hpp"
#include "slip.hpp"

#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include <cmath>

namespace attn {

Vector dot_scores(const Matrix& inputs, const Vector& query) {
    arguments::dot_scores(inputs, query);  // bad input -> a clear error

    const std::size_t T = inputs.shape(0), d_in = inputs.shape(1);
    Vector scores = xt::zeros<float>({T});
    if (slip("loop_to_d_in")) {  // one score per column of inputs, not per row
        for (std::size_t i = 0; i < d_in; ++i) {
            scores(i) = xt::sum(query * xt::row(inputs, i))();
        }
        return scores;
    }
    if (slip("first_score_unfilled")) {  // i starts at 1
        for (std::size_t i = 1; i < T; ++i) scores(i) = xt::sum(query * xt::row(inputs, i))();
        return scores;
    }
    if (slip("last_product_skipped")) {  // k < d_in - 1
        for (std::size_t i = 0; i < T; ++i) {
            for (std::size_t k = 0; k < d_in - 1; ++k) scores(i) += query(k) * inputs(i, k);
        }
        return scores;
    }
    if (slip("running_sum")) {  // the sum declared once, outside the loop over i
        float total = 0.0f;
        for (std::size_t i = 0; i < T; ++i) {
            for (std::size_t k = 0; k < d_in; ++k) total += query(k) * inputs(i, k);
            scores(i) = total;
        }
        return scores;
    }
    if (slip("int_accumulator")) {
        for (std::size_t i = 0; i < T; ++i) {
            int s = 0;
            for (std::size_t k = 0; k < d_in; ++k) s += query(k) * inputs(i, k);
            scores(i) = s;
        }
        return scores;
    }
    if (slip("self_dot")) {
        for (std::size_t i = 0; i < T; ++i) {
            scores(i) = xt::sum(xt::row(inputs, i) * xt::row(inputs, i))();
        }
        return scores;
    }
    if (slip("added")) {
        for (std::size_t i = 0; i < T; ++i) scores(i) = xt::sum(query + xt::row(inputs, i))();
        return scores;
    }
    if (slip("cosine_similarity")) {  // the dot product divided by both lengths
        for (std::size_t i = 0; i < T; ++i) {
            const float dot = xt::sum(query * xt::row(inputs, i))();
            const float lengths = std::sqrt(xt::sum(query * query)()) *
                                  std::sqrt(xt::sum(xt::row(inputs, i) * xt::row(inputs, i))());
            scores(i) = dot / lengths;
        }
        return scores;
    }
    if (slip("query_indexed_by_i")) {  // query(i) where query(k) belongs
        for (std::size_t i = 0; i < T; ++i) {
            for (std::size_t k = 0; k < d_in; ++k) scores(i) += query(i) * inputs(i, k);
        }
        return scores;
    }
    for (std::size_t i = 0; i < T; ++i) {
        scores(i) = xt::sum(query * xt::row(inputs, i))();
    }
    return scores;
}

}  // namespace attn
