# Runs `oracle --print` on INPUT; the result lines must equal EXPECTED,
# and the plans must run identically (exit 0).
execute_process(COMMAND ${ORACLE} --print ${INPUT}
  OUTPUT_VARIABLE out RESULT_VARIABLE rc)
string(REGEX MATCHALL "{[0-9,]*}[^\n]*\n" lines "${out}")
string(JOIN "" got ${lines})
file(READ ${EXPECTED} want)
if(NOT got STREQUAL want)
  message(FATAL_ERROR "results differ from ${EXPECTED}:\n${got}")
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "oracle exited ${rc}:\n${out}")
endif()
