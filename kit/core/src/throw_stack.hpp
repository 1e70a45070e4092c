// kit/core/src/throw_stack.hpp — the call stack of this thread's latest throw, which
// throw_hook.cpp keeps and throw_site.cpp reads (kit/throw_site.hpp).
#pragma once

namespace attn::kit::detail {

constexpr int throw_stack_capacity = 64;
// Return addresses, innermost first, as glibc's backtrace() gives them.
extern thread_local void* throw_stack[throw_stack_capacity];
extern thread_local int throw_stack_size;

}  // namespace attn::kit::detail
