# cmake/AttnExercise.cmake — attn_add_exercise(): the targets and tests of one exercise.
#
# For exercise NN of exercises.json:
#   exNN_tests                 its test file, compiled once (an object library), with the
#                              untouched stub's text that its stub_line()s quote
#   exNN_exercises             the student's file (from ATTN_EXERCISES_DIR) as a library
#   exNN_solutions             the reference solution as a library
#   test_exNN_<track>          the test program of each track; also its case runner
#   test_exNN_slips            the test program with tests/kit/slips/<file>: the solution
#                              with wrong variants (slips) chosen by ATTN_SLIP, if it exists
#   test_exNN_exercises_asan   the exercises track with the student's file under Address-
#                              and UndefinedBehaviorSanitizer; built only when tools/kit asks
#                              (a crash, or values that look like a memory error)
# and the ctest tests exNN.exercises, exNN.solutions (labels: the track and exNN) and
# exNN.wrong_answers_rejected (labels kit and exNN). Each exercise links the REFERENCE
# versions of all earlier exercises, so a student may call any earlier function, and one
# early bug costs one exercise, not every later one.

# The flags of an exercise file, the student's or the solution: full debug information (a
# debugger shows the student's variables), without GCC's variable-tracking assignments, which
# made the recompile after an edit 0.12 s (10 %) slower for more precise locations; -Og
# so that GCC's data-flow warnings run (at -O0 it cannot see an uninitialised accumulator),
# and the warnings that are always a bug in these exercises as errors. GCC misses some
# uninitialised variables at -Og (one updated through xtensor's operators): pattern
# initialisation gives each such float -1.69e38 on every machine, never a lucky 0, and the
# comparison names it (kit/core/src/compare.cpp, looks_uninitialised).
# The uninitialised-variable errors are the Debug build's, the one students build: at -O2 and
# above GCC also reports false ones inside xtensor's headers (xtl's forward_sequence).
include(AttnRecipe)  # attn_record_recipe(): the grader's build recipe

set(ATTN_EXERCISE_FILE_FLAGS
    "$<$<CONFIG:Debug>:-g;-fno-var-tracking-assignments;-Og>"
    "$<$<CONFIG:Debug>:-Werror=uninitialized;-Werror=maybe-uninitialized>"
    -Werror=return-type -ftrivial-auto-var-init=pattern)

# Every exercise file reuses one precompiled header of the xtensor headers, which makes the
# recompile after an edit about a second faster. It holds only what every stub includes
# anyway: xtensor-blas's xlinalg.hpp would bring xio.hpp along, and a student's file that
# prints a tensor without including xio.hpp would compile here and nowhere else. It belongs
# to a target of its own: one that owned a student's file would make every exercise wait for
# that file to compile.
file(WRITE ${CMAKE_BINARY_DIR}/attn_exercise_pch.cpp "// compiles the exercises' header\n")
add_library(attn_exercise_pch OBJECT ${CMAKE_BINARY_DIR}/attn_exercise_pch.cpp)
target_link_libraries(attn_exercise_pch PRIVATE attn_headers)
target_compile_options(attn_exercise_pch PRIVATE ${ATTN_EXERCISE_FILE_FLAGS})
target_precompile_headers(attn_exercise_pch PRIVATE <xtensor/xtensor.hpp> <xtensor/xview.hpp>
                                                    <xtensor/xmath.hpp>)

# The tests quote the stub's check lines from the stub itself (stub_line(), kit/stub_lines.hpp):
# each exercise's test objects get its untouched stub's text, from git's blob of exercises.json's
# stub_blob (`tools/kit dev catalogue` keeps it current), never from the student's exercises/ file,
# whose checks a student may have edited or deleted. Where git or the blob is missing (a kit
# without .git, as the grader's `git archive` export and Gradescope's copy are, or a stub
# edited and not yet committed), the kit's own exercises/ file is read instead, and a fragment
# it does not contain is then quoted as it is rather than failed as a kit error.
find_program(ATTN_GIT NAMES git)
mark_as_advanced(ATTN_GIT)

# attn_stub_text(<id> <stub path in the kit> <stub_blob or ""> <output variable>): writes the
# source that defines exercise <id>'s attn::kit::exercise_stub(); its path in <output variable>.
function(attn_stub_text id stub blob out)
  set(pristine false)
  if(ATTN_GIT AND blob)
    execute_process(COMMAND ${ATTN_GIT} cat-file blob ${blob}
                    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                    OUTPUT_VARIABLE text RESULT_VARIABLE failed ERROR_QUIET)
    if(failed EQUAL 0)
      set(pristine true)
      set(origin "git's blob ${blob} (exercises.json's stub_blob)")
    endif()
  endif()
  if(NOT pristine)
    file(READ ${CMAKE_SOURCE_DIR}/${stub} text)
    set(origin "the kit's ${stub} (no git blob ${blob})")
  endif()
  string(FIND "${text}" ")attn_stub\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${stub} holds `)attn_stub\"`, which ends the raw string of its text")
  endif()
  set(source ${CMAKE_BINARY_DIR}/attn_stub_text/ex${id}_stub.cpp)
  string(CONCAT content
         "// Generated by cmake/AttnExercise.cmake: the text of ${stub} from ${origin}.\n"
         "#include \"kit/stub_lines.hpp\"\n\n"
         "const attn::kit::stub_text& attn::kit::exercise_stub() {\n"
         "    static const stub_text stub{\"${id}\", \"${stub}\", R\"attn_stub(${text})attn_stub\", "
         "${pristine}};\n"
         "    return stub;\n}\n")
  if(EXISTS ${source})
    file(READ ${source} written)
  endif()
  if(NOT content STREQUAL written)  # rewritten only when it changes: no needless recompile
    file(WRITE ${source} "${content}")
  endif()
  set(${out} ${source} PARENT_SCOPE)
endfunction()

# attn_add_exercise(<catalogue JSON text> <index in "exercises">)
function(attn_add_exercise catalogue index)
  string(JSON id GET "${catalogue}" exercises ${index} id)
  string(JSON label GET "${catalogue}" exercises ${index} label)
  string(JSON test_source GET "${catalogue}" exercises ${index} test)
  string(JSON stub GET "${catalogue}" exercises ${index} stub)
  string(JSON solution GET "${catalogue}" exercises ${index} solution)
  string(JSON cpu_limit GET "${catalogue}" settings test_timeout_s)
  string(JSON wall_factor GET "${catalogue}" settings test_wall_factor)
  math(EXPR wall_limit "${cpu_limit} * ${wall_factor}")
  cmake_path(GET stub FILENAME stub_name)
  # "gpu": true marks the GPU track's exercises (.cu files, cmake/AttnGpu.cmake): built on the
  # OMP or CUDA backend, labelled gpu, and not at all when ATTN_GPU is OFF.
  string(JSON gpu ERROR_VARIABLE not_gpu GET "${catalogue}" exercises ${index} gpu)
  # "kernel": true marks a CUDA kernel (attn/gpu/kernel.hpp, attn_kernel_sources): built in
  # every build, by nvcc in the CUDA one and by g++ for the kit's emulator everywhere else.
  string(JSON kernel ERROR_VARIABLE not_kernel GET "${catalogue}" exercises ${index} kernel)
  set(labels ${label})
  set(file_flags ${ATTN_EXERCISE_FILE_FLAGS})
  if(kernel)
    set(gpu OFF)
    list(APPEND labels gpu)
    if(ATTN_GPU_BACKEND STREQUAL "CUDA")
      set(file_flags "$<$<CONFIG:Debug>:-g>" "-Xcompiler=-Werror=return-type")
    endif()
  else()
    set(kernel OFF)
  endif()
  if(gpu)
    if(ATTN_GPU_BACKEND STREQUAL "OFF")
      message(STATUS "Exercise ${id} is on the GPU track, which is off: not built")
      return()
    endif()
    list(APPEND labels gpu)
    if(ATTN_GPU_BACKEND STREQUAL "CUDA")
      set(file_flags "$<$<CONFIG:Debug>:-g>" "-Xcompiler=-Werror=return-type")
    endif()
  else()
    set(gpu OFF)
  endif()

  string(JSON stub_blob ERROR_VARIABLE no_stub_blob GET "${catalogue}" exercises ${index} stub_blob)
  attn_stub_text(${id} "${stub}" "${stub_blob}" stub_text_source)
  set_source_files_properties(${stub_text_source} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
  add_library(ex${id}_tests OBJECT ${test_source} ${stub_text_source})
  target_link_libraries(ex${id}_tests PUBLIC kit_testing)
  target_compile_definitions(ex${id}_tests PRIVATE ATTN_EXERCISE_ID="${id}")
  target_precompile_headers(ex${id}_tests REUSE_FROM kit_testing)
  if(gpu OR (kernel AND ATTN_GPU_BACKEND STREQUAL "CUDA"))
    # The kit's GPU shim and its headers (kit/gpu/include), for the test file only.
    target_link_libraries(ex${id}_tests PUBLIC attn_gpu_tensors)
  endif()
  if(kernel AND ATTN_GPU_BACKEND STREQUAL "CUDA")
    target_compile_definitions(ex${id}_tests PRIVATE ATTN_KERNEL_ON_CUDA)
  elseif(kernel)
    target_link_libraries(ex${id}_tests PUBLIC kit_emu)
  endif()

  set(sources exercises "${ATTN_EXERCISES_DIR}/${stub_name}" solutions "${solution}")
  foreach(track IN ITEMS exercises solutions)
    list(FIND sources ${track} at)
    math(EXPR at "${at} + 1")
    list(GET sources ${at} source)
    add_library(ex${id}_${track} STATIC)
    target_link_libraries(ex${id}_${track} PUBLIC attn_api ${ATTN_EARLIER_SOLUTIONS})
    target_compile_options(ex${id}_${track} PRIVATE ${file_flags})
    if(gpu)
      # No xtensor header in a GPU file: nvcc never parses xtensor (the shim attn_gpu_tensors
      # converts), so the xtensor precompiled header is not for it either.
      attn_gpu_sources(ex${id}_${track} ${source})
    elseif(kernel)
      attn_kernel_sources(ex${id}_${track} ${source})
    else()
      target_sources(ex${id}_${track} PRIVATE ${source})
      target_precompile_headers(ex${id}_${track} REUSE_FROM attn_exercise_pch)
    endif()

    add_executable(test_ex${id}_${track})
    target_link_libraries(test_ex${id}_${track} PRIVATE ex${id}_tests ex${id}_${track}
                                                        kit_testing_main)
    # --attn-verdicts: the verdict stream tools/kit reads (docs/verdicts.md); it names the
    # test a hang or a crash stopped in, and the crash's signal.
    add_test(NAME ex${id}.${track}
             COMMAND test_ex${id}_${track} --gtest_brief=1 --attn-cpu-limit=${cpu_limit}
                     --attn-verdicts=${ATTN_REPORT_DIR}/ex${id}.${track}.verdicts)
    # A student's endless loop ends at its CPU limit (SIGXCPU, named in the verdict stream);
    # correct code needs well under a second. The wall clock only backs it up: a busy machine
    # slows correct code by the clock, not by its CPU time.
    set_tests_properties(ex${id}.${track} PROPERTIES LABELS "${track};${labels}"
                                                     TIMEOUT ${wall_limit})
    if((gpu OR kernel) AND ATTN_GPU_BACKEND STREQUAL "CUDA")
      # Without a CUDA device the test program skips every test (tests/test_23's
      # environment): ctest says skipped, never passed.
      set_tests_properties(ex${id}.${track} PROPERTIES SKIP_REGULAR_EXPRESSION
                                                       "cannot run here: no CUDA device")
    endif()
  endforeach()

  if(ATTN_BUILD_RECIPE)
    attn_record_recipe(${id} ${gpu} ${kernel})
  endif()

  # The student's file again, under the sanitizers: the file and line of a memory error. Its
  # object comes first on the link line: of the copies of an inline function (xtensor's
  # operator()), the linker keeps the first, and only the student's copy is instrumented.
  # g++ only: nvcc has no AddressSanitizer.
  if(NOT ATTN_GPU_BACKEND STREQUAL "CUDA" OR NOT (gpu OR kernel))
    set(sanitizers -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
    add_library(ex${id}_exercises_asan OBJECT EXCLUDE_FROM_ALL)
    if(gpu)
      attn_gpu_sources(ex${id}_exercises_asan "${ATTN_EXERCISES_DIR}/${stub_name}")
    elseif(kernel)
      attn_kernel_sources(ex${id}_exercises_asan "${ATTN_EXERCISES_DIR}/${stub_name}")
    else()
      target_sources(ex${id}_exercises_asan PRIVATE "${ATTN_EXERCISES_DIR}/${stub_name}")
    endif()
    target_link_libraries(ex${id}_exercises_asan PUBLIC attn_api ${ATTN_EARLIER_SOLUTIONS})
    # _GLIBCXX_ASSERTIONS: an index past a std::vector's end (heads[h] of a one-head wrapper)
    # only computes an address in the student's code, and the kit's uninstrumented code reads
    # it: the checked operator[] aborts at the student's call instead (ASan prints its stack).
    target_compile_options(ex${id}_exercises_asan PRIVATE ${ATTN_EXERCISE_FILE_FLAGS}
                                                          ${sanitizers} -D_GLIBCXX_ASSERTIONS)
    add_executable(test_ex${id}_exercises_asan EXCLUDE_FROM_ALL)
    target_link_libraries(test_ex${id}_exercises_asan PRIVATE ex${id}_exercises_asan ex${id}_tests
                                                              kit_testing_main)
    target_link_options(test_ex${id}_exercises_asan PRIVATE ${sanitizers})
    add_dependencies(sanitized_exercises test_ex${id}_exercises_asan)
  endif()

  # The kit's proof that wrong code as students write it is rejected and named: the exercise's
  # test program linked with tests/kit/slips/<file>, the solution with slips chosen at run
  # time by ATTN_SLIP; tests/kit/test_slips.py runs each slip and reads the status line.
  # Not in a sanitized build: the slips are wrong on purpose, and the sanitizers find nothing
  # in them that the plain build's run does not name (tools/kit test --full skips them there).
  set(slips_file ${CMAKE_SOURCE_DIR}/tests/kit/slips/${stub_name})
  if(EXISTS ${slips_file} AND NOT ATTN_SANITIZE)
    add_library(ex${id}_slips STATIC)
    target_link_libraries(ex${id}_slips PUBLIC attn_api ${ATTN_EARLIER_SOLUTIONS})
    target_compile_options(ex${id}_slips PRIVATE ${file_flags})
    if(gpu)
      attn_gpu_sources(ex${id}_slips ${slips_file})
    elseif(kernel)
      attn_kernel_sources(ex${id}_slips ${slips_file})
    else()
      target_sources(ex${id}_slips PRIVATE ${slips_file})
      target_precompile_headers(ex${id}_slips REUSE_FROM attn_exercise_pch)
    endif()
    add_executable(test_ex${id}_slips)
    target_link_libraries(test_ex${id}_slips PRIVATE ex${id}_tests ex${id}_slips kit_testing_main)
    add_test(NAME ex${id}.slips_named
             COMMAND ${ATTN_PYTHON} ${CMAKE_SOURCE_DIR}/tests/kit/test_slips.py
                     --build ${CMAKE_BINARY_DIR} --exercise ${id})
    set_tests_properties(ex${id}.slips_named PROPERTIES LABELS "kit;slips;${labels}" TIMEOUT 600)
  endif()

  # The kit's own check that this exercise's goldens reject wrong answers (tests/kit/; not in
  # a sanitized build, as test_known_mistakes is not).
  if(NOT ATTN_SANITIZE)
    add_test(NAME ex${id}.wrong_answers_rejected
             COMMAND test_known_mistakes --gtest_brief=1 --gtest_filter=*/ex${id}_*)
    set_tests_properties(ex${id}.wrong_answers_rejected PROPERTIES LABELS "kit;${labels}"
                         FAIL_REGULAR_EXPRESSION "\\[==========\\] 0 tests")  # none selected
  endif()

  # Later exercises build on this one's reference solution.
  set(ATTN_EARLIER_SOLUTIONS ${ATTN_EARLIER_SOLUTIONS} ex${id}_solutions PARENT_SCOPE)
endfunction()
