// endless_compile's 10, before the solution: an endless file.

// An endless file.
#include "/dev/zero"
