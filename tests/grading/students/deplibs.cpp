// deplibs_04: 04's stub, whose object carries an ELF .deplibs section (what clang's
// `#pragma comment(lib, ...)` emits; GNU as writes it from this .pushsection) naming the kit's
// own libex04_solutions.a by paths relative to where a link might run, and a system library.
// lld links every library a .deplibs names: the missing functions came from the kit's
// solutions, 200 points for nothing. Refused before the link (tools/grader/symbols.py), and
// lld links with --no-dependent-libraries.

#pragma comment(lib, "ex04_solutions")  // what clang turns into .deplibs; g++ ignores it
asm(".pushsection .deplibs,\"MS\",@0x6fff4c04,1\n"
    ".asciz \"libex04_solutions.a\"\n"
    ".asciz \"../.kit-build/libex04_solutions.a\"\n"
    ".asciz \"../../../.kit-build/libex04_solutions.a\"\n"
    ".asciz \"libm.so.6\"\n"
    ".popsection\n");
