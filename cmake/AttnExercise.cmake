# cmake/AttnExercise.cmake — attn_add_exercise(): the targets and tests of one exercise.
#
# For exercise NN of exercises.json:
#   exNN_tests                 its test file, compiled once (an object library)
#   exNN_exercises             the student's file (from ATTN_EXERCISES_DIR) as a library
#   exNN_solutions             the reference solution as a library
#   test_exNN_<track>          the test program of each track; also its case runner
# and the ctest tests exNN.exercises, exNN.solutions (labels: the track and exNN) and
# exNN.wrong_answers_rejected (labels kit and exNN). Each exercise links the REFERENCE
# versions of all earlier exercises, so a student may call any earlier function, and one
# early bug costs one exercise, not every later one.

# attn_add_exercise(<catalogue JSON text> <index in "exercises">)
function(attn_add_exercise catalogue index)
  string(JSON id GET "${catalogue}" exercises ${index} id)
  string(JSON label GET "${catalogue}" exercises ${index} label)
  string(JSON test_source GET "${catalogue}" exercises ${index} test)
  string(JSON stub GET "${catalogue}" exercises ${index} stub)
  string(JSON solution GET "${catalogue}" exercises ${index} solution)
  string(JSON timeout GET "${catalogue}" settings test_timeout_s)
  cmake_path(GET stub FILENAME stub_name)

  add_library(ex${id}_tests OBJECT ${test_source})
  target_link_libraries(ex${id}_tests PUBLIC kit_testing)
  target_compile_definitions(ex${id}_tests PRIVATE ATTN_EXERCISE_ID="${id}")

  set(sources exercises "${ATTN_EXERCISES_DIR}/${stub_name}" solutions "${solution}")
  foreach(track IN ITEMS exercises solutions)
    list(FIND sources ${track} at)
    math(EXPR at "${at} + 1")
    list(GET sources ${at} source)
    add_library(ex${id}_${track} STATIC ${source})
    target_link_libraries(ex${id}_${track} PUBLIC attn_api ${ATTN_EARLIER_SOLUTIONS})

    add_executable(test_ex${id}_${track})
    target_link_libraries(test_ex${id}_${track} PRIVATE ex${id}_tests ex${id}_${track}
                                                        kit_testing_main)
    add_test(NAME ex${id}.${track}
             COMMAND test_ex${id}_${track} --gtest_brief=1
                     --gtest_output=json:${ATTN_REPORT_DIR}/ex${id}.${track}.json)
    # A student's endless loop ends here; correct code needs well under a second.
    set_tests_properties(ex${id}.${track} PROPERTIES LABELS "${track};${label}"
                                                     TIMEOUT ${timeout})
  endforeach()

  # The kit's own check that this exercise's goldens reject wrong answers (tests/kit/).
  add_test(NAME ex${id}.wrong_answers_rejected
           COMMAND test_known_mistakes --gtest_brief=1 --gtest_filter=*/ex${id}_*)
  set_tests_properties(ex${id}.wrong_answers_rejected PROPERTIES LABELS "kit;${label}"
                       FAIL_REGULAR_EXPRESSION "\\[==========\\] 0 tests")  # none selected

  # Later exercises build on this one's reference solution.
  set(ATTN_EARLIER_SOLUTIONS ${ATTN_EARLIER_SOLUTIONS} ex${id}_solutions PARENT_SCOPE)
endfunction()
