# Writes the shell completions the built cudoctor prints into OUT (for the install rules):
#   cmake -DBIN=path/to/cudoctor -DOUT=dir -P completions.cmake
file(MAKE_DIRECTORY "${OUT}")
foreach(pair "bash;cudoctor" "zsh;_cudoctor" "fish;cudoctor.fish")
  list(GET pair 0 shell)
  list(GET pair 1 name)
  execute_process(COMMAND "${BIN}" completion ${shell} OUTPUT_FILE "${OUT}/${name}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${BIN} completion ${shell} failed (${rc})")
  endif()
endforeach()
