# hloplan writes the JSON of INPUT (HLOPLAN, into DIR); the oracle's
# identity run (ORACLE) reads it and every plan in it must run clean.
get_filename_component(n ${INPUT} NAME_WE)
file(MAKE_DIRECTORY ${DIR})
set(json ${DIR}/${n}.json)
execute_process(COMMAND ${HLOPLAN} ${INPUT} --json ${json} -o ${DIR}/${n}.h
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "hloplan --json: exit ${rc}\n${err}")
endif()
execute_process(COMMAND ${ORACLE} --identity --json ${json} ${INPUT}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "oracle --identity --json: exit ${rc}\n${out}${err}")
endif()
message(STATUS "${out}")
