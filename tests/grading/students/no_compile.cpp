// no_compile_03: a syntax error left in, after 03's solution: the file does not compile.

// A syntax error a student left in: the file does not compile.
namespace attn {
int left_unfinished =
}  // namespace attn
