// kit/core/src/throw_hook.cpp — every C++ throw of the program keeps its call stack first
// (kit/throw_site.hpp).
//
// A translation unit of its own with no C++ library header: libstdc++'s headers declare
// __cxa_throw with other parameter types (std::type_info* in <cxxabi.h>, void* in
// <ext/concurrence.h>), and a C function has one declaration. The program's definition comes
// before libstdc++'s in the dynamic linker's search, so every throw, the student's code's and
// the libraries' inline ones, comes here; libstdc++'s __cxa_throw then throws as always.
#include "throw_stack.hpp"

#include <dlfcn.h>
#include <execinfo.h>
#include <stdlib.h>

namespace attn::kit::detail {

thread_local void* throw_stack[throw_stack_capacity];
thread_local int throw_stack_size = 0;

}  // namespace attn::kit::detail

extern "C" [[noreturn]] void __cxa_throw(void* thrown, void* type, void (*destroy)(void*)) {
    using namespace attn::kit::detail;
    throw_stack_size = backtrace(throw_stack, throw_stack_capacity);
    using throw_function = void (*)(void*, void*, void (*)(void*));
    static const auto next = reinterpret_cast<throw_function>(dlsym(RTLD_NEXT, "__cxa_throw"));
    if (next == nullptr) abort();
    next(thrown, type, destroy);
    abort();  // libstdc++'s __cxa_throw never returns
}
