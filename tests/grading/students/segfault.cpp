// segfault_04: every 04 function writes through a null pointer (SIGSEGV).

namespace {
// A write through a null pointer the compiler cannot see is null: SIGSEGV.
int* volatile nowhere = nullptr;
void write_through_null() { *nowhere = 42; }
}  // namespace
