# The README's binding example is samples/aot/readme_bind.c, word for word
# (the ```c block after "## An example"), and it compiles
# and runs clean on samples/aot/readme.hlo, under AddressSanitizer when the
# compiler takes it: parameters of 41 and 12 bytes in slots of 256 that a
# copy of _SIZE bytes would over-read.  Run as
#   cmake -DHLOPLAN= -DCC= -DSRC= -DBIN= -P readme_check.cmake
file(READ ${SRC}/README.md readme)
string(FIND "${readme}" "## An example" at)
if(at LESS 0)
  message(FATAL_ERROR "README.md has no example section")
endif()
string(SUBSTRING "${readme}" ${at} -1 readme)
string(FIND "${readme}" "```c\n" at)
string(SUBSTRING "${readme}" ${at} -1 readme)
string(LENGTH "```c\n" n)
string(SUBSTRING "${readme}" ${n} -1 readme)
string(FIND "${readme}" "```\n" end)
string(SUBSTRING "${readme}" 0 ${end} code)
file(READ ${SRC}/samples/aot/readme_bind.c sample)
if(NOT code STREQUAL sample)
  message(FATAL_ERROR "README.md's binding example differs from "
                      "samples/aot/readme_bind.c")
endif()

file(MAKE_DIRECTORY ${BIN})
execute_process(COMMAND ${HLOPLAN} ${SRC}/samples/aot/readme.hlo
                -o ${BIN}/plan.h RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "hloplan exited ${rc}")
endif()
set(flags -std=c11 -Wall -Wextra -Wpedantic -Werror -I${BIN})
set(asan -fsanitize=address -fno-sanitize-recover=all)
execute_process(COMMAND ${CC} ${flags} ${asan}
  ${SRC}/samples/aot/readme_bind.c -o ${BIN}/readme_bind
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message("no AddressSanitizer here: ${out}")
  execute_process(COMMAND ${CC} ${flags} ${SRC}/samples/aot/readme_bind.c
    -o ${BIN}/readme_bind RESULT_VARIABLE rc OUTPUT_VARIABLE out
    ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "readme_bind.c:\n${out}")
  endif()
endif()
execute_process(COMMAND ${BIN}/readme_bind RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readme_bind exited ${rc}")
endif()
foreach(want "parameter\\(0\\) pred\\[1,41\\]{1,0}: 41 bytes at 0"
             "parameter\\(1\\) f32\\[3\\]{0}: 12 bytes at 256"
             "main/y: y at 512" "y = -1 -2 -3")
  if(NOT out MATCHES "${want}")
    message(FATAL_ERROR "missing: ${want}")
  endif()
endforeach()
