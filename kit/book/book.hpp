// kit/book/book.hpp — the seed notebooks' cells, ported to C++, printing the book's numbers.
//
// `tools/kit book` runs every port and sets what it prints beside what the document printed
// (reference_data/book/printed.json, quoted from the documents by tools/recorder/book.py).
// A port is the cell's computation written with the kit's API — the solutions of the
// exercises, and attn::TorchGenerator where the cell seeds PyTorch — so each is also an
// example of how a notebook cell reads in C++.
#pragma once

#include "attn/tensor.hpp"
#include "kit/any_tensor.hpp"

#include <functional>
#include <string>
#include <vector>

namespace attn::book {

using Prints = std::vector<kit::any_tensor>;  // the tensors a cell prints, in print order

struct Port {
    std::string cell;  // "001 In [20]": the document and its cell, as printed.json names them
    std::string code;  // the cell's computation in one line, as the C++ below reads
    std::function<Prints()> run;
    int precision = 4;  // torch.set_printoptions(precision=...) in force when the cell ran
    // Why the document's print is wrong (run() prints the right value instead), or empty.
    std::string book_is_wrong = {};
    // Why a value may print one unit apart in its last digit, or empty: the document's
    // PyTorch summed in another order, and a value on a rounding boundary rounded the other
    // way. attn_book accepts that difference only for a value within 4 float32 ulps of the
    // boundary, and says which.
    std::string rounds_apart = {};
    // Why the cell's print cannot be reproduced in C++, or empty (then run is not called).
    std::string not_reproducible = {};
};

// The ports of each seed document, in cell order.
std::vector<Port> ports_000();  // the book's exercise solutions 3.1-3.3
std::vector<Port> ports_001();  // the book's chapter 3 notebook, sections 3.3-3.6
std::vector<Port> ports_002();  // the multi-head attention tutorial
std::vector<Port> ports_003();  // the step-by-step exercises in the column convention
std::vector<Port> ports_004();  // the book's text of section 3.4.2

// The six "Your journey starts with one step" token embeddings every document starts from.
Matrix journey_inputs();
// batch = torch.stack((inputs, inputs), dim=0): two identical sequences, (2, 6, 3).
Tensor3 journey_batch();

// A tensor of any of the kit's ranks, or a number (a 0-d tensor), as a print.
template <class Tensor>
kit::any_tensor print(const Tensor& tensor) {
    return kit::float_tensor(tensor);
}
kit::any_tensor print(float number);

}  // namespace attn::book
