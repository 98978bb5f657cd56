# --from-json takes every place from the file: the JSON of samples/alias.hlo
# written (ORACLE, INPUT, DIR), then edited: the entry ROOT's {0}, a
# forwarded position, moved from the updated weights' buffer to the
# gradient's (the same size) must make the oracle see the plan differ
# (exit 1); a truncated file is an error (exit 2) that names the byte.
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
execute_process(COMMAND ${ORACLE} --from-json --json-dir ${DIR} ${INPUT}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the JSON as written: exit ${rc}\n${out}${err}")
endif()
set(json ${DIR}/alias.gpu.json)
file(READ ${json} text)
set(from "{\"step\": 11, \"index\": [0], \"buffer\": 0,")
set(to "{\"step\": 11, \"index\": [0], \"buffer\": 1,")
string(FIND "${text}" "${from}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "no position ${from} in ${json}")
endif()
string(REPLACE "${from}" "${to}" edited "${text}")
file(WRITE ${json} "${edited}")
execute_process(COMMAND ${ORACLE} --from-json --json-dir ${DIR} ${INPUT}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT out MATCHES "DIFFERS in plan gpu")
  message(FATAL_ERROR "a moved position not seen: exit ${rc}\n${out}${err}")
endif()
string(SUBSTRING "${text}" 0 1000 cut)
file(WRITE ${json} "${cut}")
execute_process(COMMAND ${ORACLE} --from-json --json-dir ${DIR} ${INPUT}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "JSON at byte [0-9]+: ")
  message(FATAL_ERROR "a truncated file: exit ${rc}\n${out}${err}")
endif()
message(STATUS "moved position seen; truncated file refused")
