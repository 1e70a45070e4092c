# cmake/AttnRecipe.cmake — the grader's build recipe (ATTN_BUILD_RECIPE, which tools/grade's
# kit build turns on): how a student's file is compiled and linked into exercise NN's program,
# written by CMake, never scraped from its outputs. cmake/attn_record_step.py launches the
# stub's compile and its test program's link, runs each as CMake wrote it and records it in
# recipes/exNN.<step>.json, with the parts CMake names on its launcher line (source, object,
# program, the target's folder) and in recipes/exNN.targets.json (the stub's library, the
# earlier solutions' archives) as placeholders. tools/grader/kitbuild.py fills them for each
# student. Every CMake from 3.25 to 4.x, every language (nvcc's too) and linker: the steps are
# CMake's own, link dependency files (CMake >= 3.27) included.
option(ATTN_BUILD_RECIPE "Record the grader's build recipe of each exercise (recipes/)" OFF)

set(ATTN_RECORD_STEP ${CMAKE_CURRENT_LIST_DIR}/attn_record_step.py)

# attn_record_recipe(<id> <gpu> <kernel>): the recipe of exercise <id>, from its targets
# exNN_exercises (the stub's library) and test_exNN_exercises (its program), which must exist;
# the earlier solutions' archives are ATTN_EARLIER_SOLUTIONS, the kit libraries a student's
# file may call ATTN_API_LIBRARIES, and for a CUDA kernel on the emulator kit_emu (the rest of
# the link is the kit's own, which it may neither define nor call: tools/grader/symbols.py).
# Needs ATTN_PYTHON.
function(attn_record_recipe id gpu kernel)
  set(recipes ${CMAKE_BINARY_DIR}/recipes)
  foreach(kind IN ITEMS solution api)
    set(${kind} "")
  endforeach()
  foreach(earlier IN LISTS ATTN_EARLIER_SOLUTIONS)
    list(APPEND solution "\"$<TARGET_LINKER_FILE:${earlier}>\"")
  endforeach()
  set(api_libraries ${ATTN_API_LIBRARIES})
  if(kernel AND NOT ATTN_GPU_BACKEND STREQUAL "CUDA")
    list(APPEND api_libraries kit_emu)
  endif()
  foreach(library IN LISTS api_libraries)
    list(APPEND api "\"$<TARGET_LINKER_FILE:${library}>\"")
  endforeach()
  list(JOIN solution ", " solution)
  list(JOIN api ", " api)
  file(GENERATE OUTPUT ${recipes}/ex${id}.targets.json CONTENT
       "{\"exercise\": \"${id}\", \"stub_library\": \"$<TARGET_LINKER_FILE:ex${id}_exercises>\",
 \"solution_archives\": [${solution}], \"api_archives\": [${api}]}\n")
  set(language CXX)
  if((gpu OR kernel) AND ATTN_GPU_BACKEND STREQUAL "CUDA")
    set(language CUDA)
  endif()
  list(LENGTH CMAKE_${language}_COMPILER_LAUNCHER launcher_words)  # ccache: not in the recipe
  # Quoted: the launcher line is run by a shell.
  set(record "\"${ATTN_PYTHON}\" \"${ATTN_RECORD_STEP}\"")
  set_property(TARGET ex${id}_exercises PROPERTY RULE_LAUNCH_COMPILE
               "${record} compile \"${recipes}/ex${id}.compile.json\" \"${recipes}/ex${id}.targets.json\" \
<CMAKE_CURRENT_BINARY_DIR> <TARGET_NAME> <SOURCE> <OBJECT> ${launcher_words} --")
  set_property(TARGET test_ex${id}_exercises PROPERTY RULE_LAUNCH_LINK
               "${record} link \"${recipes}/ex${id}.link.json\" \"${recipes}/ex${id}.targets.json\" \
<CMAKE_CURRENT_BINARY_DIR> <TARGET_NAME> <TARGET> 0 --")
endfunction()
