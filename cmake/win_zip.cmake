# The Windows release zip (`make windows`): cudoctor.exe, the man page as plain text,
# README and LICENSE, in cudoctor-VERSION-windows-x86_64.zip beside the exe.
#   cmake -DEXE=... -DSRC=... -DOUT=... -DVERSION=... -P win_zip.cmake
set(name cudoctor-${VERSION}-windows-x86_64)
set(stage ${OUT}/zip/${name})
file(REMOVE_RECURSE ${OUT}/zip)
file(MAKE_DIRECTORY ${stage})
file(COPY ${EXE} DESTINATION ${stage})
file(COPY ${SRC}/README.md ${SRC}/LICENSE DESTINATION ${stage})
# man's own plain-text rendering where man is installed, else the page's source, readable
find_program(MAN man)
if(MAN)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env MANWIDTH=80 ${MAN} -P cat -l ${SRC}/docs/cudoctor.1
                  OUTPUT_VARIABLE page RESULT_VARIABLE rc ERROR_QUIET)
endif()
if(NOT MAN OR NOT rc EQUAL 0 OR page STREQUAL "")
  file(READ ${SRC}/docs/cudoctor.1 page)
endif()
# no backspace overstrikes (bold, underline) in a text file
string(ASCII 8 backspace)
string(REGEX REPLACE ".${backspace}" "" page "${page}")
string(REPLACE "\n" "\r\n" page "${page}")
file(WRITE ${stage}/cudoctor.txt "${page}")
file(REMOVE ${OUT}/${name}.zip)
execute_process(COMMAND ${CMAKE_COMMAND} -E tar cf ${OUT}/${name}.zip --format=zip ${name}
                WORKING_DIRECTORY ${OUT}/zip RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "win_zip: could not write ${OUT}/${name}.zip")
endif()
