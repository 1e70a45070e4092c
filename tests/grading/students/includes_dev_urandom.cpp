// endless_compile's 11, before the solution: an endless file of noise.

// An endless file of noise.
#include "/dev/urandom"
