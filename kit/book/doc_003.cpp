// kit/book/doc_003.cpp — Understanding Deep Learning's 12_1_Self_Attention.ipynb: tokens are
// COLUMNS, N = 3 tokens of D = 4, then two heads on N = 6 tokens of D = 8. Every tensor the
// notebook uses is torch.randn: D × 1 draws take PyTorch's small-size path (per element, in
// double, one normal kept for the next draw), D × D and larger its batched one.
#include "attn/multi_head_attention.hpp"
#include "attn/simple_attention.hpp"
#include "attn/trainable_attention.hpp"
#include "book.hpp"
#include "kit/torch_generator.hpp"

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

namespace attn::book {
namespace {

constexpr std::size_t N = 3, D = 4;

// In [1]: torch.manual_seed(3); x = torch.randn(size=(D, 1)), three times.
std::vector<Matrix> all_x() {
    TorchGenerator torch(3);
    std::vector<Matrix> xs;
    for (std::size_t n = 0; n < N; ++n) xs.push_back(torch.randn<2>({D, 1}));
    return xs;
}

// In [2]: torch.manual_seed(0); W_q, W_k, W_v (D, D), then b_q, b_k, b_v (D, 1).
struct Projections {
    Matrix W_q, W_k, W_v, b_q, b_k, b_v;
};
Projections projections() {
    TorchGenerator torch(0);
    Projections p;
    p.W_q = torch.randn<2>({D, D});
    p.W_k = torch.randn<2>({D, D});
    p.W_v = torch.randn<2>({D, D});
    p.b_q = torch.randn<2>({D, 1});
    p.b_k = torch.randn<2>({D, 1});
    p.b_v = torch.randn<2>({D, 1});
    return p;
}

// In [27]: X, the tokens as the columns of one (D, N) matrix.
Matrix X() {
    const std::vector<Matrix> xs = all_x();
    Matrix X({D, N});
    for (std::size_t n = 0; n < N; ++n) xt::col(X, n) = xt::col(xs[n], 0);
    return X;
}

// In [4]: queries, keys and values of every token, as columns: q_n = W_q x_n + b_q.
struct Columns {
    Matrix queries, keys, values;
};
Columns columns() {
    const Projections p = projections();
    const Matrix x = X();
    return {project_columns(p.W_q, x, p.b_q), project_columns(p.W_k, x, p.b_k),
            project_columns(p.W_v, x, p.b_v)};
}

Matrix column(const Matrix& m, std::size_t n) {
    return xt::view(m, xt::all(), xt::range(n, n + 1));
}

// In [20]: each query's softmax over its scaled scores.
std::vector<Vector> attention_weights() {
    const Columns c = columns();
    std::vector<Vector> weights;
    for (std::size_t n = 0; n < N; ++n) {
        weights.push_back(softmax(scaled_scores_column(c.keys, column(c.queries, n))));
    }
    return weights;
}

// x'_2's third entry is -1.64215004, 5e-9 from the boundary between -1.6421 and -1.6422.
const char* const boundary =
    "the document's PyTorch (2.6, on another machine) added in another order and rounded this "
    "value the other way; PyTorch 1.13 on an x86-64 CPU prints what C++ prints";

}  // namespace

std::vector<Port> ports_003() {
    const auto two_heads = [] {
        TorchGenerator data(3);
        const Matrix mat_X = data.randn<2>({8, 6});
        TorchGenerator torch(0);  // In [69], in the order the notebook draws
        ColumnHeads heads(2);
        for (ColumnHead& head : heads) {
            head.W_q = torch.randn<2>({4, 8});
            head.W_k = torch.randn<2>({4, 8});
            head.W_v = torch.randn<2>({4, 8});
            head.b_q = torch.randn<2>({4, 1});
            head.b_k = torch.randn<2>({4, 1});
            head.b_v = torch.randn<2>({4, 1});
        }
        const Matrix W_c = torch.randn<2>({8, 8});
        return multi_head_attention_columns(mat_X, heads, W_c);
    };
    return {
        {"003 In [1]", "TorchGenerator torch(3); x_n = torch.randn<2>({D, 1}), n = 1, 2, 3",
         [] {
             Prints prints;
             for (const Matrix& x : all_x()) prints.push_back(print(x));
             return prints;
         }},
        {"003 In [12]", "scaled_scores_column(keys, query_n)[m] for every query n, key m",
         [] {
             const Columns c = columns();
             Prints prints;
             for (std::size_t n = 0; n < N; ++n) {
                 for (float score : scaled_scores_column(c.keys, column(c.queries, n))) {
                     prints.push_back(print(score));
                 }
             }
             return prints;
         }},
        {"003 In [18]", "Vector{1, 2, 3}",
         [] {
             return Prints{print(Vector{1.0f, 2.0f, 3.0f})};
         }},
        {"003 In [20]", "softmax(scaled_scores_column(keys, query_n)), n = 1, 2, 3",
         [] {
             Prints prints;
             for (const Vector& weights : attention_weights()) prints.push_back(print(weights));
             return prints;
         }},
        {"003 In [22]", "weighted_values_column(weights_n, values), n = 1, 2, 3",
         [] {
             const Columns c = columns();
             Prints prints;
             for (const Vector& weights : attention_weights()) {
                 prints.push_back(print(weighted_values_column(weights, c.values)));
             }
             return prints;
         },
         4, "", boundary},
        {"003 In [26]",
         "the weights of In [20], then each self_attention_column_query(queries, keys, values, "
         "n).T, as computed and as the cell's text states it",
         [] {
             const Columns c = columns();
             Prints prints;
             for (const Vector& weights : attention_weights()) prints.push_back(print(weights));
             for (std::size_t n = 0; n < N; ++n) {
                 const Matrix x_prime =
                     xt::transpose(self_attention_column_query(c.queries, c.keys, c.values, n));
                 prints.push_back(print(x_prime));  // x_prime_n_calculated
                 prints.push_back(print(x_prime));  // x_prime_n_true, a string in the cell
             }
             return prints;
         },
         4, "", boundary},
        {"003 In [27]", "X: the columns x_1, x_2, x_3", [] { return Prints{print(X())}; }},
        {"003 In [38]", "scaled_dot_product_self_attention(X, W_v, W_q, W_k, b_v, b_q, b_k)",
         [] {
             const Projections p = projections();
             return Prints{print(
                 scaled_dot_product_self_attention(X(), p.W_v, p.W_q, p.W_k, p.b_v, p.b_q, p.b_k))};
         },
         4, "", boundary},
        // In [61] and [72] print with precision 3: the notebook had run
        // torch.set_printoptions(precision=3), the line In [72] keeps commented out.
        {"003 In [61]", "TorchGenerator torch(3); mat_X = torch.randn<2>({8, 6})",
         [] {
             TorchGenerator torch(3);
             return Prints{print(torch.randn<2>({8, 6}))};
         },
         3},
        {"003 In [72]",
         "multi_head_attention_columns(mat_X, two heads drawn at TorchGenerator(0), W_c), as "
         "computed and as the cell's true_values state it",
         [two_heads] {
             const Matrix X_prime = two_heads();
             return Prints{print(X_prime), print(X_prime)};
         },
         3},
    };
}

}  // namespace attn::book
