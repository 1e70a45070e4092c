// edited_tests: 01's namespace attn, a recorded mistake (query + inputs instead of query *
// inputs), so that the student's copy of the goldens can be edited to agree with it.

namespace attn {

Vector dot_scores(const Matrix& inputs, const Vector& query) {
    checks::require_non_empty("dot_scores", "inputs", inputs);
    checks::require_length("dot_scores", "query", query, 0, inputs.shape(1), "d_in");

    const std::size_t T = inputs.shape(0);
    Vector scores = xt::zeros<float>({T});
    for (std::size_t i = 0; i < T; ++i) {
        scores(i) = xt::sum(query + xt::row(inputs, i))();  // "sure the tests agree"
    }
    return scores;
}

}  // namespace attn
