// endless_compile's 08, before the solution: a file that includes itself twice per level.

// I unrolled my loops with the preprocessor: this file includes itself, twice at every level.
#include __FILE__
#include __FILE__
