# Two plans of two models, --prefix ALIAS and --prefix MLP, in one C and
# one C++ translation unit with -Wall -Wextra -Wpedantic -Werror; runs each.
#   cmake -DHLOPLAN= -DCC= -DCXX= -DSRC= -DBIN= -P two_plans.cmake
file(MAKE_DIRECTORY ${BIN})
foreach(m alias mlp)
  string(TOUPPER ${m} p)
  execute_process(COMMAND ${HLOPLAN} ${SRC}/samples/${m}.hlo --prefix ${p}
                  -o ${BIN}/${m}_plan.h RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "hloplan ${m}.hlo exited ${rc}")
  endif()
endforeach()
set(flags -Wall -Wextra -Wpedantic -Werror -I${BIN})
foreach(lang c c++)
  if(lang STREQUAL "c")
    set(cc ${CC} -std=c11)
  else()
    set(cc ${CXX} -std=c++17)
  endif()
  set(exe ${BIN}/two_plans_${lang})
  execute_process(COMMAND ${cc} ${flags} -x ${lang}
    ${SRC}/tests/runtime/two_plans.c -o ${exe}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "two_plans.c as ${lang}:\n${out}")
  endif()
  execute_process(COMMAND ${exe} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE out)
  message("${out}")
  if(NOT rc EQUAL 0 OR NOT out MATCHES "MLP_TPU: [1-9]")
    message(FATAL_ERROR "two_plans (${lang}) exited ${rc}")
  endif()
endforeach()
