// tests/kit/slips/11_transfer_weights.cpp — solutions/11_transfer_weights.cpp with the slips
// students make in it, each chosen at run time by ATTN_SLIP (tests/kit/test_slips.py runs them
// all). Without ATTN_SLIP it is the solution and must pass every test.
//
// Three assignments: the transpose, which layer goes where, and where they land.
// slip: not_transposed -> without the transpose
// slip: query_key_swapped -> W_query and W_key swapped
// slip: key_value_swapped -> W_key and W_value swapped
// slip: all_from_query -> copied W_query.weight into all three
// slip: copied_into_a_copy -> the weights were not copied
// not yet named: value_transposed_twice (W_value only left untransposed: "sa_v1.W_value: has
//   shape (2, 3), expected (3, 2)", no mistake named)
#include "attn/arguments.hpp"
#include "attn/errors.hpp"
#include "attn/linear.hpp"
#include "attn/self_attention.hpp"
#include "slip.hpp"

#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

namespace attn {

void transfer_weights(const SelfAttention_v2& from, SelfAttention_v1& to) {
    arguments::transfer_weights(from, to);  // bad input -> a clear error

    if (slip("not_transposed")) {  // Matrix's assignment resizes: no error, as copy_ gives
        to.W_query = from.W_query.weight;
        to.W_key = from.W_key.weight;
        to.W_value = from.W_value.weight;
        return;
    }
    if (slip("copied_into_a_copy")) {  // `auto v1 = to;` then assigned into v1
        SelfAttention_v1 v1 = to;
        v1.W_query = xt::transpose(from.W_query.weight);
        v1.W_key = xt::transpose(from.W_key.weight);
        v1.W_value = xt::transpose(from.W_value.weight);
        return;
    }
    if (slip("value_transposed_twice")) {  // the transpose of the transpose: weight again
        to.W_query = xt::transpose(from.W_query.weight);
        to.W_key = xt::transpose(from.W_key.weight);
        to.W_value = xt::transpose(xt::transpose(from.W_value.weight));
        return;
    }
    const Linear& query = slip("query_key_swapped") ? from.W_key : from.W_query;
    const Linear& key = slip("query_key_swapped")   ? from.W_query
                        : slip("key_value_swapped") ? from.W_value
                        : slip("all_from_query")    ? from.W_query
                                                    : from.W_key;
    const Linear& value = slip("key_value_swapped") ? from.W_key
                          : slip("all_from_query")  ? from.W_query
                                                    : from.W_value;
    // nn.Linear stores weight (d_out, d_in); v1 multiplies x @ W with W (d_in, d_out).
    to.W_query = xt::transpose(query.weight);
    to.W_key = xt::transpose(key.weight);
    to.W_value = xt::transpose(value.weight);
}

}  // namespace attn
