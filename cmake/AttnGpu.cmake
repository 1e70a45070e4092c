# cmake/AttnGpu.cmake — the GPU track's backend: ATTN_GPU=OFF|OMP|CUDA.
#
#   OMP   Thrust's OpenMP backend on the CPU: g++ compiles the track's .cu files as C++ with
#         THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_OMP, against Debian's libthrust-dev, and
#         Linear runs on OpenBLAS. A student without a GPU finishes the kit here.
#   CUDA  nvcc compiles them against the toolkit's own Thrust (CCCL 3), Linear on cuBLAS.
#   OFF   no GPU track: exercise 23 is not built (tools/kit says what to install).
# Left empty (the default), ATTN_GPU means OMP when Thrust and OpenMP are installed, else OFF.
#
# After include(): ATTN_GPU_BACKEND (OFF, OMP or CUDA); with a backend, the interface target
# attn_gpu_backend (Thrust's device system, OpenMP or the CUDA runtime, the BLAS) and
# attn_gpu_sources(<target> <source>...) to add .cu files to a target in the backend's
# language.

set(ATTN_GPU "" CACHE STRING
    "The GPU track's backend: OFF, OMP (Thrust on OpenMP, g++) or CUDA (nvcc); empty: OMP \
when libthrust-dev is installed")
set_property(CACHE ATTN_GPU PROPERTY STRINGS "" OFF OMP CUDA)

find_package(OpenMP COMPONENTS CXX QUIET)
if(ATTN_GPU STREQUAL "")
  find_path(ATTN_THRUST_INCLUDE_DIR thrust/version.h)
  if(ATTN_THRUST_INCLUDE_DIR AND OpenMP_CXX_FOUND)
    set(ATTN_GPU_BACKEND OMP)
  else()
    set(ATTN_GPU_BACKEND OFF)
    message(STATUS "GPU track: off (install libthrust-dev for exercise 23 on the CPU)")
  endif()
else()
  string(TOUPPER "${ATTN_GPU}" ATTN_GPU_BACKEND)
endif()
if(NOT ATTN_GPU_BACKEND MATCHES "^(OFF|OMP|CUDA)$")
  message(FATAL_ERROR "ATTN_GPU is '${ATTN_GPU}': use OFF, OMP or CUDA")
endif()

if(ATTN_GPU_BACKEND STREQUAL "OMP")
  find_path(ATTN_THRUST_INCLUDE_DIR thrust/version.h)
  if(NOT ATTN_THRUST_INCLUDE_DIR OR NOT OpenMP_CXX_FOUND)
    message(FATAL_ERROR "ATTN_GPU=OMP needs Thrust (apt-get install libthrust-dev) and OpenMP")
  endif()
  add_library(attn_gpu_backend INTERFACE)
  target_include_directories(attn_gpu_backend INTERFACE ${ATTN_THRUST_INCLUDE_DIR})
  target_compile_definitions(attn_gpu_backend INTERFACE
                             THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_OMP)
  target_link_libraries(attn_gpu_backend INTERFACE OpenMP::OpenMP_CXX BLAS::BLAS)
elseif(ATTN_GPU_BACKEND STREQUAL "CUDA")
  # No GPU is needed to compile: the architecture is named, never "native". 90 is the H100.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90)
  endif()
  enable_language(CUDA)
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  find_package(CUDAToolkit REQUIRED)
  add_library(attn_gpu_backend INTERFACE)
  # CCCL 3 (CUDA 13) keeps Thrust and CUB under include/cccl.
  target_include_directories(attn_gpu_backend INTERFACE ${CUDAToolkit_INCLUDE_DIRS}
                                                        ${CUDAToolkit_INCLUDE_DIRS}/cccl)
  target_link_libraries(attn_gpu_backend INTERFACE CUDA::cudart CUDA::cublas)
  # A host function called from device code (std::vector, std::string, std::getenv,
  # std::numeric_limits, std::max, a helper not marked ATTN_HOST_DEVICE) is only a warning to
  # nvcc (#20011, #20013-#20015), and the call fails on the GPU: made errors, so exercise 23
  # with any of them does not compile here, as on the grader and CI.
  target_compile_options(attn_gpu_backend INTERFACE
                         "$<$<COMPILE_LANGUAGE:CUDA>:-lineinfo;-Xcompiler=-Wall>"
                         "$<$<COMPILE_LANGUAGE:CUDA>:--diag-error=20011,20013,20014,20015>")
endif()
message(STATUS "GPU track backend: ${ATTN_GPU_BACKEND}")
# For tools/kit and tools/grade, which read a build's CMakeCache.txt.
set(ATTN_GPU_BACKEND ${ATTN_GPU_BACKEND} CACHE INTERNAL "The GPU track's backend of this build")

# attn_gpu_sources(<target> <source>...): the sources as CUDA under nvcc, as C++ (g++ -x c++)
# on the OpenMP backend; one file, two compilers.
function(attn_gpu_sources target)
  target_sources(${target} PRIVATE ${ARGN})
  if(ATTN_GPU_BACKEND STREQUAL "OMP")
    set_source_files_properties(${ARGN} TARGET_DIRECTORY ${target} PROPERTIES LANGUAGE CXX)
  endif()
  target_link_libraries(${target} PUBLIC attn_gpu_backend)
endfunction()

# attn_kernel_sources(<target> <source>...): the files of a CUDA kernel written on
# attn/gpu/kernel.hpp: nvcc's in the CUDA build; everywhere else g++'s (-x c++), run by the
# kit's emulator (kit_emu), which needs no GPU and no Thrust.
function(attn_kernel_sources target)
  target_sources(${target} PRIVATE ${ARGN})
  if(ATTN_GPU_BACKEND STREQUAL "CUDA")
    target_link_libraries(${target} PUBLIC attn_gpu_backend)
  else()
    set_source_files_properties(${ARGN} TARGET_DIRECTORY ${target} PROPERTIES LANGUAGE CXX)
    target_link_libraries(${target} PUBLIC kit_emu)
  endif()
endfunction()
