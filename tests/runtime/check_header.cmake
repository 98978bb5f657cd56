# Builds a plan header into the checker, two translation units, with
# -Wall -Wextra -Wpedantic -Werror, and compiles the header on its own; then
# MODE run: runs the checker; build: stops there; compile-error: expects the
# build to fail with a message matching REGEX.  Run by ctest through
#   cmake -DCOMPILER= -DLANG=C|CXX -DSTD= -DHEADER= -DPREFIX= -DSRC= -DBIN=
#         [-DMODE=] [-DREGEX=] [-DSANITIZE=] -P check_header.cmake
if(NOT MODE)
  set(MODE run)
endif()
set(flags -std=${STD} -Wall -Wextra -Wpedantic -Werror)
if(SANITIZE)
  list(APPEND flags -fsanitize=${SANITIZE} -fno-sanitize-recover=all)
endif()
if(LANG STREQUAL "CXX")
  set(lang -x c++)
else()
  set(lang -x c)
endif()
get_filename_component(dir "${HEADER}" DIRECTORY)
get_filename_component(file "${HEADER}" NAME)
get_filename_component(bindir "${BIN}" DIRECTORY)
file(MAKE_DIRECTORY "${bindir}")

set(build ${COMPILER} ${flags} ${lang} -I${dir} -I${SRC}
    "-DPLAN_HEADER=\"${file}\"" -DPLAN_PREFIX=${PREFIX}
    ${SRC}/check_plan.c ${SRC}/check_tu2.c -o ${BIN})
# As the main file, where compilers warn of unused static declarations.
set(alone ${COMPILER} ${flags} ${lang} -fsyntax-only ${HEADER})
string(REPLACE ";" " " build_line "${build}")
message("${build_line}")
file(REMOVE "${BIN}")
execute_process(COMMAND ${build} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE out)

if(MODE STREQUAL "compile-error")
  if(rc EQUAL 0)
    message(FATAL_ERROR "${HEADER} compiled, but should not have")
  endif()
  if(NOT out MATCHES "${REGEX}")
    message(FATAL_ERROR "the build failed without '${REGEX}':\n${out}")
  endif()
  message("failed as expected:\n${out}")
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${out}")
endif()

string(REPLACE ";" " " alone_line "${alone}")
message("${alone_line}")
execute_process(COMMAND ${alone} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the header on its own: ${out}")
endif()

if(MODE STREQUAL "run")
  execute_process(COMMAND ${BIN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE out)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${BIN}: exit ${rc}")
  endif()
endif()
