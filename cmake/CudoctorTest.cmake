# cudoctor_add_test: registers one CTest test, run through tests/run_test.sh so that
# tests/check.sh can add up what it counted (cmocka cases, or the test as one).
#   cudoctor_add_test(NAME LABELS label... TIMEOUT seconds [COST n] COMMAND cmd args...)
# Every test runs from the source tree, as the tests expect; in a sanitizer build with the
# sanitizer options `make check` uses, so `ctest -R NAME` there sees what check saw.
set(CUDOCTOR_TALLY_DIR ${CMAKE_BINARY_DIR}/tests/tally)

function(cudoctor_add_test name)
  cmake_parse_arguments(PARSE_ARGV 1 T "" "TIMEOUT;COST" "LABELS;COMMAND")
  add_test(NAME ${name}
    COMMAND sh ${CMAKE_SOURCE_DIR}/tests/run_test.sh ${CUDOCTOR_TALLY_DIR}/${name} ${T_COMMAND}
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT} SKIP_RETURN_CODE 77)
  if(T_COST)
    set_tests_properties(${name} PROPERTIES COST ${T_COST})
  endif()
  if(CUDOCTOR_SANITIZE)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT
      "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0;UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
  endif()
endfunction()
