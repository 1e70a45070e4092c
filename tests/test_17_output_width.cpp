// tests/test_17_output_width.cpp — Exercise 17: the book's Exercise 3.2 (a two-dimensional
// output with two heads). Compiled once; linked against exercises/ and
// solutions/17_output_width.cpp, and the reference solutions of the earlier exercises (the
// wrapper's forward is exercise 16's). The cases are in reference_data/17_output_width/: the
// heads' parameters PyTorch made at a seed, under their state_dict() names, or the seed
// attn::HashedUniform draws them from.
#include "attn/errors.hpp"
#include "attn/module.hpp"
#include "attn/multi_head_attention.hpp"
#include "kit/testing.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

using attn::kit::case_input;
using attn::kit::case_integer;
using attn::kit::stub_line;

// The student's wrapper for the case's output_width and num_heads, its parameters from
// `recorded` (or `init`), on the case's x: the calls read as the notebook's Exercise 3.2.
// The two kinds repeat these lines rather than share a helper: each case kind's calls stand
// in its own body, where the headline scan (test_student_code.cpp) reads them.

// The parameters PyTorch drew at the notebook's seed, d_out = output_width / num_heads: a
// module of another d_out asks for weights of another shape, and the source names them.
ATTN_CASE(output_width) {
    attn::FromStateDict recorded(the_case.state_dict());
    const auto x = the_case.input<3>("x");  // (B, T, d_in)
    const std::size_t d_in = x.shape(2);
    const std::size_t output_width = the_case.size("output_width");
    const std::size_t context_length = the_case.size("context_length");
    const std::size_t num_heads = the_case.size("num_heads");
    const auto mha = ATTN_CALL(
        attn::wrapper_for_output_width(d_in, output_width, context_length, num_heads, recorded));
    ATTN_RESULT("context", mha.forward(x));
}

// The parameters from attn::HashedUniform(init_seed): any d_out builds, and the output's
// shape and values show which.
ATTN_CASE(output_width_hashed) {
    attn::HashedUniform init(static_cast<std::uint64_t>(the_case.integer("init_seed")));
    const auto x = the_case.input<3>("x");  // (B, T, d_in)
    const std::size_t d_in = x.shape(2);
    const std::size_t output_width = the_case.size("output_width");
    const std::size_t context_length = the_case.size("context_length");
    const std::size_t num_heads = the_case.size("num_heads");
    const auto mha = ATTN_CALL(
        attn::wrapper_for_output_width(d_in, output_width, context_length, num_heads, init));
    ATTN_RESULT("context", mha.forward(x));
}

namespace {

// The notebook case's sizes: Exercise 3.2's d_in 3, output_width 2, 2 heads, 6 tokens.
struct notebook_sizes {
    std::size_t d_in, output_width, num_heads, context_length;
};

notebook_sizes notebook() {
    const std::string at = "17_output_width/notebook";
    return {case_input<3>(at, "x").shape(2), case_integer(at, "output_width"),
            case_integer(at, "num_heads"), case_integer(at, "context_length")};
}

}  // namespace

TEST(OutputWidthTest, RejectsAWidthTheHeadsCannotShare) {
    const notebook_sizes n = notebook();
    attn::HashedUniform init(0);
    const std::size_t odd = n.output_width + 1;  // 3 features for 2 heads
    ATTN_EXPECT_REJECTS(
        attn::wrapper_for_output_width(n.d_in, n.output_width, n.context_length, n.num_heads, init),
        attn::wrapper_for_output_width(n.d_in, odd, n.context_length, n.num_heads, init),
        "output_width = " + std::to_string(odd) + " for num_heads = " + std::to_string(n.num_heads),
        attn::shape_error,
        "output_width = " + std::to_string(odd) +
            " is not divisible by num_heads = " + std::to_string(n.num_heads),
        stub_line("arguments::wrapper_for_output_width("));
}

TEST(OutputWidthTest, RejectsNoHeads) {
    const notebook_sizes n = notebook();
    attn::HashedUniform init(0);
    ATTN_EXPECT_REJECTS(
        attn::wrapper_for_output_width(n.d_in, n.output_width, n.context_length, n.num_heads, init),
        attn::wrapper_for_output_width(n.d_in, n.output_width, n.context_length, 0, init),
        "num_heads = 0", attn::shape_error, "num_heads is 0",
        stub_line("arguments::wrapper_for_output_width("));
}
