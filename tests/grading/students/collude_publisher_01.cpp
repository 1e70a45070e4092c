// collude_1_publisher: 01's namespace attn, right, and publishing every answer.

namespace attn {

// Right, and shared: every answer also goes where a friend graded later can find it.
Vector dot_scores(const Matrix& inputs, const Vector& query) {
    checks::require_non_empty("dot_scores", "inputs", inputs);
    checks::require_length("dot_scores", "query", query, 0, inputs.shape(1), "d_in");

    const std::size_t T = inputs.shape(0);
    Vector scores = xt::zeros<float>({T});
    for (std::size_t i = 0; i < T; ++i) {
        scores(i) = xt::sum(query * xt::row(inputs, i))();
    }
    if (T <= hostile_01::kMaxValues) {
        hostile_01::answer shared{};
        shared.key = hostile_01::mix(hostile_01::mix(14695981039346656037ull, inputs), query);
        shared.count = static_cast<std::uint32_t>(T);
        std::copy(scores.begin(), scores.end(), shared.values);
        hostile_01::publish(shared);
    }
    return scores;
}

}  // namespace attn
