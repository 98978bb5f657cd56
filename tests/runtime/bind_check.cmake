# A runtime binds a module's parameters and outputs from its plan header
# alone (samples/aot/bind.c), checks every binding and value against the
# plan the library makes, and prints one line per binding; the JSON (by jq)
# and the CSV must carry the same bindings and as many values.  The header
# is the default one, both targets' plans (the TPU plan's tables may be the
# GPU plan's), and the plan checked is the one of prefix PREFIX (default
# HLOPLAN_GPU or HLOPLAN_TPU), the library's INDEX-th plan of TARGET
# (default 0: of a file of several modules, module INDEX's).  Run as
#   cmake -DHLOPLAN= -DMODULE= -DTARGET=gpu|tpu -DCC= -DSRC=samples/aot
#         -DINCLUDE= -DLIB= -DBIN= -DJQ= [-DSANITIZE=] [-DPREFIX= -DINDEX=]
#         -P bind_check.cmake
string(TOUPPER ${TARGET} T)
if(NOT PREFIX)
  set(PREFIX HLOPLAN_${T})
endif()
if(NOT INDEX)
  set(INDEX 0)
endif()
file(MAKE_DIRECTORY ${BIN})
get_filename_component(n ${MODULE} NAME_WE)
set(h ${BIN}/${n}_${TARGET}_${INDEX}.h)
set(json ${BIN}/${n}_${TARGET}_${INDEX}.json)
set(csv ${BIN}/${n}_${TARGET}_${INDEX}.csv)
set(exe ${BIN}/${n}_${TARGET}_${INDEX}_bind)

execute_process(COMMAND ${HLOPLAN} ${MODULE} -o ${h} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "hloplan ${MODULE} exited ${rc}")
endif()
execute_process(COMMAND ${HLOPLAN} ${MODULE} --target=${TARGET}
                --json ${json} --csv ${csv} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "hloplan ${MODULE} --target=${TARGET} exited ${rc}")
endif()

set(flags -std=c11 -Wall -Wextra -Wpedantic -Werror)
if(SANITIZE)
  list(APPEND flags -fsanitize=${SANITIZE} -fno-sanitize-recover=all)
endif()
get_filename_component(hfile ${h} NAME)
execute_process(COMMAND ${CC} ${flags} -I${BIN} -I${INCLUDE}
  "-DPLAN_HEADER=\"${hfile}\"" -DPLAN_PREFIX=${PREFIX}
  -DPLAN_TARGET=HLOPLAN_TARGET_${T} -DPLAN_INDEX=${INDEX}
  "-DMODEL=\"${MODULE}\""
  ${SRC}/bind.c ${LIB} -lpthread -o ${exe}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bind.c with ${h}:\n${out}")
endif()
execute_process(COMMAND ${exe} ${MODULE} RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${exe} exited ${rc}")
endif()

# The header's bindings as "param N {i,j} buffer B offset O" lines, sorted.
string(REGEX MATCHALL "(param [0-9]+|output) {[0-9,]*} buffer [0-9]+ offset -?[0-9]+"
       header_lines "${out}")
list(SORT header_lines)
string(REGEX MATCH "bound, ([0-9]+) values" m "${out}")
set(header_values ${CMAKE_MATCH_1})
list(LENGTH header_lines nbind)
if(nbind EQUAL 0 AND NOT out MATCHES "OK: 0 parameters and 0 outputs")
  message(FATAL_ERROR "no bindings read from the output")
endif()

function(compare what lines values)
  list(SORT lines)
  if(NOT "${lines}" STREQUAL "${header_lines}")
    message(FATAL_ERROR "the ${what} binds\n${lines}\nthe header\n"
                        "${header_lines}")
  endif()
  if(NOT "${values}" STREQUAL "${header_values}")
    message(FATAL_ERROR "the ${what} has ${values} values, the header "
                        "${header_values}")
  endif()
  message("${what}: the same ${nbind} bindings and ${values} values")
endfunction()

# The JSON, by jq.
if(JQ)
  set(q [=[.plans[] | select(.prefix == "%PREFIX%") | .buffers[] | . as $b
    | ((select(has("parameter")) | "param \(.parameter) {\(.param_index | map(tostring) | join(","))} buffer \($b.id) offset \($b.offset // -1)"),
       (select(has("output_index")) | "output {\(.output_index | map(tostring) | join(","))} buffer \($b.id) offset \($b.offset // -1)"))]=])
  string(REPLACE "%PREFIX%" "${PREFIX}" q "${q}")
  execute_process(COMMAND ${JQ} -r "${q}" ${json} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE jout)
  execute_process(COMMAND ${JQ} "[.plans[] | select(.prefix == \"${PREFIX}\")
                  | .buffers[].values | length] | add // 0"
                  ${json} OUTPUT_VARIABLE jvalues)
  string(STRIP "${jvalues}" jvalues)
  string(REGEX REPLACE "\n$" "" jout "${jout}")
  string(REPLACE "\n" ";" jlines "${jout}")
  compare(JSON "${jlines}" "${jvalues}")
endif()

# The CSV: buffer_id and offset lead each row; parameter, param_index,
# output_index and values end it.  Values are joined by ';', CMake's list
# separator: read as '|'.
file(READ ${csv} text)
string(REPLACE ";" "|" text "${text}")
string(REGEX REPLACE "\n$" "" text "${text}")
string(REPLACE "\n" ";" rows "${text}")
list(REMOVE_AT rows 0)
set(clines "")
set(cvalues 0)
foreach(row IN LISTS rows)
  if(NOT row MATCHES ",${PREFIX},\"")	# another plan's
    continue()
  endif()
  if(NOT row MATCHES "^([0-9]+),\"([^\"]|\"\")*\",(-?[0-9]+),")
    message(FATAL_ERROR "a CSV row: ${row}")
  endif()
  set(id ${CMAKE_MATCH_1})
  set(off ${CMAKE_MATCH_3})
  if(NOT row MATCHES ",(-?[0-9]*),(\"{[0-9,]*}\")?,(\"{[0-9,]*}\")?,\"([^\"]*)\"$")
    message(FATAL_ERROR "a CSV row's bindings: ${row}")
  endif()
  set(par ${CMAKE_MATCH_1})
  string(REPLACE "\"" "" pidx "${CMAKE_MATCH_2}")
  string(REPLACE "\"" "" oidx "${CMAKE_MATCH_3}")
  string(REGEX MATCHALL "}(\\||$)" vals "${CMAKE_MATCH_4}")
  list(LENGTH vals nv)
  math(EXPR cvalues "${cvalues} + ${nv}")
  if(NOT "${par}" STREQUAL "")
    list(APPEND clines "param ${par} ${pidx} buffer ${id} offset ${off}")
  endif()
  if(NOT "${oidx}" STREQUAL "")
    list(APPEND clines "output ${oidx} buffer ${id} offset ${off}")
  endif()
endforeach()
compare(CSV "${clines}" "${cvalues}")
