// kit/laws.hpp — laws a case's output obeys whatever its values: no hard-coded answer fakes them.
//
// A golden says what one input gives; a law says how the output must move when the input
// moves, which a table of recorded answers cannot know. The laws are data, recorded with the
// case (MANIFEST.json's "laws", tools/recorder/cases.py's Law), so the judge, which trusts
// nothing the runner wrote, knows which to check. Each is checked by running the case body
// again on its inputs changed, a *variant*:
//
//   causal  the inputs' tokens j = T/2.. (along the law's input axis) replaced by tokens
//           0.. (token t gets token t - j): every output of a token before j must stay as it
//           was (within the golden's tolerance), and the output of the later tokens must
//           change (an answer that ignores its input is not causal, it is hard-coded);
//   order   the inputs' tokens in reverse order, where no mask tells the tokens apart: the
//           output must be the same tokens' outputs in reverse order;
//   batch   the inputs narrowed to their last sequence (batch axis, size 1): its output must
//           be the last sequence's output of the whole batch;
//   heads   the same along the head axis: the last head alone gives that head's output.
// Two results are compared within twice the golden's tolerance: each may be one tolerance from
// the exact answer (a variant sums in another order, or with other BLAS blocks).
//
// The GoogleTest layer runs the variants in-process (kit/testing/src/main.cpp); the runner
// writes each variant's output as law.<law>.<output>.npy beside the case's results, and the
// judge checks it against the case's own result (kit/core/src/judge.cpp). Both use
// check_law, so they agree. A sentence here says what the numbers did and then the likely
// cause, and never states an expected value: the same words serve a hidden case.
#pragma once

#include "kit/compare.hpp"
#include "kit/golden_store.hpp"

#include <cstddef>
#include <string>

namespace attn::kit {

// The first token a causal variant changes: T / 2.
std::size_t first_changed_token(std::size_t tokens);

// Whether `law`'s variant changes the case's input `name`.
bool law_changes(const case_law& law, const std::string& name);

// `tensor`, the case's input of that name, as `law`'s variant sees it (see above). Throws
// golden_error if the tensor has no such axis or fewer than 2 entries along it.
float_tensor law_input(const case_law& law, const float_tensor& tensor);

// "law.causal.context": the name the variant's output has among a case's results.
std::string law_output_name(const case_law& law);

// What the variant is, for a sentence: "tokens 3.. of x changed", "the tokens of x were
// reversed", "sequence 1 ran alone";
// `size` is the size of the law's output axis in the case's own result.
std::string law_variant(const case_law& law, std::size_t size);

struct law_verdict {
    bool passed = true;
    // one line, what the numbers did then the likely cause ("the output of token 0 changed
    // when ...: the future leaks in (...)"), nothing of the expected tensor in it
    std::string reason;
    std::string details;  // further lines, each starting with two spaces: what was checked
};

// Checks `law` on `base`, the case's own result of law.output, and `variant`, the variant's.
// The tolerance is `golden`'s (its error scale, its rule; exact for int64 and bool). A base
// result that is not of the golden's shape and dtype already failed its comparison: the law
// is then not checked (passed).
law_verdict check_law(const case_law& law, const any_tensor& base, const any_tensor& variant,
                      const expected_golden& golden);

// A variant whose call threw (`failure`: its one-line failure), or that left no result.
law_verdict law_threw(const case_law& law, std::size_t size, const std::string& failure);
law_verdict law_without_result(const case_law& law, std::size_t size);

// A law's verdict as a comparison, for the verdict files: reason (also withheld_reason: a law
// sentence states nothing of the expected tensor) and details.
comparison law_comparison(const law_verdict& verdict);

}  // namespace attn::kit
