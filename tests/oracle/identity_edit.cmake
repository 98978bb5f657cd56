# oracle --identity takes every place from the JSON, and a broken plan
# fails.  (1) hloplan's own --json of samples/mlp.hlo (HLOPLAN, ORACLE,
# MLP, DIR) runs clean; edited so that buffer 'bb' lies over 'h', live at
# once, it must be seen (exit 1).  (2) The JSON of samples/alias.hlo as
# --identity --json-dir writes it (ALIAS), edited so that a forwarded
# position (the entry ROOT's {0}) points at another buffer of the same
# size, must be seen (exit 1, "DIFFERS in plan gpu").
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
set(json ${DIR}/mlp.json)
execute_process(COMMAND ${HLOPLAN} ${MLP} --json ${json} -o ${DIR}/mlp.h
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "hloplan --json: exit ${rc}\n${err}")
endif()
execute_process(COMMAND ${ORACLE} --identity --json ${json} ${MLP}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "gpu: clean by value identity")
  message(FATAL_ERROR "hloplan's JSON as written: exit ${rc}\n${out}${err}")
endif()
file(READ ${json} text)
set(from "\"name\": \"bb\", \"class\": [\"temp\"], \"flags\": 0, \"space\": 0, \"in_arena\": true, \"offset\": 518144,")
set(to "\"name\": \"bb\", \"class\": [\"temp\"], \"flags\": 0, \"space\": 0, \"in_arena\": true, \"offset\": 501760,")
string(FIND "${text}" "${from}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "no buffer ${from} in ${json}")
endif()
string(REPLACE "${from}" "${to}" edited "${text}")
file(WRITE ${json} "${edited}")
execute_process(COMMAND ${ORACLE} --identity --json ${json} ${MLP}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT out MATCHES "gpu: DIFFERS: .*'h'")
  message(FATAL_ERROR "buffers overlapped, not seen: exit ${rc}\n${out}${err}")
endif()
message(STATUS "overlap seen: ${out}")

execute_process(COMMAND ${ORACLE} --identity --json-dir ${DIR} ${ALIAS}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "alias's JSON as written: exit ${rc}\n${out}${err}")
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
execute_process(COMMAND ${ORACLE} --identity --json-dir ${DIR} ${ALIAS}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT out MATCHES "DIFFERS in plan gpu: by value identity")
  message(FATAL_ERROR "a moved position not seen: exit ${rc}\n${out}${err}")
endif()
message(STATUS "moved position seen: ${out}")
