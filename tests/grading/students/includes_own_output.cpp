// endless_compile's 09, before the solution: the compiler's own output pipe.

// Reads the compiler's own output pipe: it waits for input that never comes.
#include "/proc/self/fd/1"
