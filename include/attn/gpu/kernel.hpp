// attn/gpu/kernel.hpp — a CUDA kernel that nvcc compiles for a GPU and g++ for the kit's
// emulator, which runs it on the CPU and names its races (kit/emu/include/kit/emu.hpp).
//
// A kernel is written as CUDA writes it (__global__, blockIdx, threadIdx, blockDim,
// __syncthreads()), with three names of the kit's where plain CUDA has syntax the emulator
// cannot see into:
//   ATTN_SHARED(float, key_tile, TILE, HEAD_DIM);   // __shared__ float key_tile[TILE][HEAD_DIM];
//   attn::gpu::global<const float> queries          // a kernel's const float* queries
//   attn::gpu::launch(kernel, grid, block, args...) // kernel<<<grid, block>>>(args...)
// and attn::gpu::global_view(pointer, count, "name") makes a global<T> of a host pointer
// for the launch. On the emulator every index of a shared array or a global pointer is
// checked, and knows the line it was written on.
#pragma once

#include <cstddef>
#include <cstdint>

#ifdef __CUDACC__

#include <cuda_runtime.h>
#include <stdexcept>
#include <string>

// [[maybe_unused]]: a stub declares its tiles before the student writes the code that uses them.
#define ATTN_SHARED(type, name, rows, columns) [[maybe_unused]] __shared__ type name[rows][columns]

namespace attn::gpu {

template <class T>
using global = T*;

template <class T>
T* global_view(T* data, std::size_t, const char*) {
    return data;
}

// kernel<<<grid, block>>>(args...), then the launch's error, if any, as an exception.
template <class... Parameters, class... Arguments>
void launch(void (*kernel)(Parameters...), dim3 grid, dim3 block, Arguments... arguments) {
    kernel<<<grid, block>>>(arguments...);
    const cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess) {
        throw std::runtime_error(std::string("kernel launch: ") + cudaGetErrorString(status));
    }
}

}  // namespace attn::gpu

#else  // g++: the kit's emulator

#include "kit/emu.hpp"

#ifndef __global__
#define __global__
#endif
#ifndef __device__
#define __device__
#endif
#define threadIdx (::attn::kit::emu::here().thread)
#define blockIdx (::attn::kit::emu::here().block)
#define blockDim (::attn::kit::emu::here().block_dim)
#define gridDim (::attn::kit::emu::here().grid_dim)
#define __syncthreads() ::attn::kit::emu::sync_threads(__LINE__)
#define ATTN_SHARED(type, name, rows, columns) \
    const ::attn::kit::emu::shared_array<type, rows, columns> name(#name)

namespace attn::gpu {

template <class T>
using global = kit::emu::global_ptr<T>;

// `count` elements at `data`, as the launch's global array `name` (what findings call it).
template <class T>
global<T> global_view(T* data, std::size_t count, const char* name) {
    return {kit::emu::global_region(name, const_cast<std::remove_const_t<T>*>(data), count,
                                    sizeof(T), !std::is_const_v<T>),
            data, 0};
}

// Runs kernel(arguments...) on the emulator: every block, each of `block` threads.
template <class... Parameters, class... Arguments>
void launch(void (*kernel)(Parameters...), dim3 grid, dim3 block, Arguments... arguments) {
    kit::emu::run(grid, block, [&] { kernel(arguments...); });
}

}  // namespace attn::gpu

#endif
