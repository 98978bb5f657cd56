# A runtime runs a module's plan through its steps from the header alone
# (samples/aot/run.c: no library, no HLO): loops their trip counts, copies
# once or in every iteration as the header says; no write may land on a
# live buffer.  Run as
#   cmake -DHLOPLAN= -DMODULE= -DTARGET=gpu|tpu -DMODE=arena|io -DCC=
#         -DSRC=samples/aot -DBIN= [-DSANITIZE=] -P run_check.cmake
string(TOUPPER ${TARGET} T)
file(MAKE_DIRECTORY ${BIN})
get_filename_component(n ${MODULE} NAME_WE)
set(h ${BIN}/${n}_${TARGET}_${MODE}.h)
set(exe ${BIN}/${n}_${TARGET}_${MODE}_run)
set(opts "")
if(MODE STREQUAL "io")
  set(opts --io-out-of-arena)
endif()

execute_process(COMMAND ${HLOPLAN} ${MODULE} --target=${TARGET} ${opts}
                -o ${h} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "hloplan ${MODULE} exited ${rc}")
endif()
set(flags -std=c11 -Wall -Wextra -Wpedantic -Werror)
if(SANITIZE)
  list(APPEND flags -fsanitize=${SANITIZE} -fno-sanitize-recover=all)
endif()
get_filename_component(hfile ${h} NAME)
execute_process(COMMAND ${CC} ${flags} -I${BIN} "-DPLAN_HEADER=\"${hfile}\""
  -DPLAN_PREFIX=HLOPLAN_${T} ${SRC}/run.c -o ${exe}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "run.c with ${h}:\n${out}")
endif()
execute_process(COMMAND ${exe} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "\nOK\n")
  message(FATAL_ERROR "${exe} exited ${rc}")
endif()
