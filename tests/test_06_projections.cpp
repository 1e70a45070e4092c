// tests/test_06_projections.cpp — Exercise 06: projections (ch03.ipynb In [17], In [18];
// 12_1_Self_Attention.ipynb Exercise 1). Compiled once; linked against exercises/ and
// solutions/06_projections.cpp, and the reference solutions of the earlier exercises.
// The cases (seeds 42 and 123, 003's inputs, other shapes, square weights) are in
// reference_data/06_projections/.
#include "attn/errors.hpp"
#include "attn/trainable_attention.hpp"
#include "kit/testing.hpp"

#include <string>

using attn::kit::case_input;
using attn::kit::stub_line;

ATTN_CASE(project_token) {
    const auto x = the_case.input<1>("x");  // (d_in,)
    const auto W = the_case.input<2>("W");  // (d_in, d_out)
    ATTN_RESULT("projection", attn::project_token(x, W));
}

ATTN_CASE(project_rows) {
    const auto inputs = the_case.input<2>("inputs");  // (T, d_in)
    const auto W = the_case.input<2>("W");            // (d_in, d_out)
    ATTN_RESULT("projections", attn::project_rows(inputs, W));
}

ATTN_CASE(project_columns) {
    const auto W = the_case.input<2>("W");  // (d_out, D)
    const auto X = the_case.input<2>("X");  // (D, N)
    const auto b = the_case.input<2>("b");  // (d_out, 1)
    ATTN_RESULT("projections", attn::project_columns(W, X, b));
}

TEST(ProjectionsTest, RejectsWeightOfWrongInputSize) {
    const auto inputs = case_input<2>("06_projections/rows_seed42_keys", "inputs");
    const auto W = case_input<2>("06_projections/rows_seed42_keys", "W");  // (3, 2)
    const attn::Matrix W_transposed = xt::transpose(W);  // (2, 3): nn.Linear's layout
    const std::string transposed =
        "W transposed, shape " + attn::shape_string(W_transposed.shape()) + " = (d_out, d_in)";
    ATTN_EXPECT_REJECTS(attn::project_rows(inputs, W), attn::project_rows(inputs, W_transposed),
                        transposed, attn::shape_error,
                        "W has shape " + attn::shape_string(W_transposed.shape()) +
                            ", but its dimension 0 must equal d_in (inputs.shape(1)) = " +
                            std::to_string(inputs.shape(1)),
                        stub_line("arguments::project_rows("));
    const attn::Vector x_2 = xt::row(inputs, 1);
    ATTN_EXPECT_REJECTS(attn::project_token(x_2, W), attn::project_token(x_2, W_transposed),
                        transposed, attn::shape_error,
                        "must equal d_in (the length of x) = " + std::to_string(x_2.shape(0)),
                        stub_line("arguments::project_token("));
}

TEST(ProjectionsTest, RejectsBiasThatIsNotOneColumn) {
    const std::string key = "06_projections/columns_X_q";
    const auto W = case_input<2>(key, "W");
    const auto X = case_input<2>(key, "X");
    const auto b = case_input<2>(key, "b");  // (4, 1)
    const attn::Matrix b_row = xt::transpose(b);
    ATTN_EXPECT_REJECTS(attn::project_columns(W, X, b), attn::project_columns(W, X, b_row),
                        "b as a row, shape " + attn::shape_string(b_row.shape()), attn::shape_error,
                        "b must be one column, shape (d_out, 1), but has shape " +
                            attn::shape_string(b_row.shape()),
                        stub_line("arguments::project_columns("));
    const attn::Matrix b_short = xt::zeros<float>({W.shape(0) - 1, std::size_t{1}});
    ATTN_EXPECT_REJECTS(attn::project_columns(W, X, b), attn::project_columns(W, X, b_short),
                        "b of d_out - 1 = " + std::to_string(b_short.shape(0)) + " rows",
                        attn::shape_error,
                        "must equal d_out (W.shape(0)) = " + std::to_string(W.shape(0)),
                        stub_line("arguments::project_columns("));
}

TEST(ProjectionsTest, RejectsTokensOfWrongSize) {
    const std::string key = "06_projections/columns_odd_shape";
    const auto W = case_input<2>(key, "W");  // (3, 5)
    const auto X = case_input<2>(key, "X");  // (5, 7)
    const auto b = case_input<2>(key, "b");
    const attn::Matrix X_rows = xt::transpose(X);  // tokens as rows: the row convention
    ATTN_EXPECT_REJECTS(
        attn::project_columns(W, X, b), attn::project_columns(W, X_rows, b),
        "X with its tokens as rows, shape " + attn::shape_string(X_rows.shape()), attn::shape_error,
        "X has shape " + attn::shape_string(X_rows.shape()) +
            ", but its dimension 0 must equal D (W.shape(1)) = " + std::to_string(W.shape(1)),
        stub_line("arguments::project_columns("));
    const attn::Matrix no_tokens = xt::zeros<float>({X.shape(0), std::size_t{0}});
    ATTN_EXPECT_REJECTS(attn::project_columns(W, X, b), attn::project_columns(W, no_tokens, b),
                        "X with no tokens, shape " + attn::shape_string(no_tokens.shape()),
                        attn::shape_error, "X is empty", stub_line("arguments::project_columns("));
}
