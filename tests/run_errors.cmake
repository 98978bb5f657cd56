# Runs hloplan on one bad input from tests/errors, as a user would
# (cd errors && hloplan NAME.hlo -o out.h), and requires exit status 1,
# stderr equal byte for byte to NAME.err, and no output file left behind.
# -D HLOPLAN= NAME= DIR= (tests/errors) OUTDIR= (a scratch directory)
# To regenerate one on purpose: cd tests/errors &&
#   hloplan NAME.hlo -o /tmp/out.h 2> NAME.err   (then read the diff)
# NAME.args, when present, holds extra options (one line); NAME.status the
# exit status expected instead of 1 (2 for a usage error).
set(out ${OUTDIR}/${NAME}.h)
set(args "")
set(status 1)
if(EXISTS ${DIR}/${NAME}.args)
  file(STRINGS ${DIR}/${NAME}.args args LIMIT_COUNT 1)
  separate_arguments(args UNIX_COMMAND "${args}")
endif()
if(EXISTS ${DIR}/${NAME}.status)
  file(STRINGS ${DIR}/${NAME}.status status LIMIT_COUNT 1)
endif()
file(MAKE_DIRECTORY ${OUTDIR})
file(REMOVE ${out})
execute_process(COMMAND ${HLOPLAN} ${NAME}.hlo ${args} -o ${out}
                WORKING_DIRECTORY ${DIR} RESULT_VARIABLE r
                OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
file(READ ${DIR}/${NAME}.err want)
file(GLOB left ${out} ${out}.tmp*)
if(NOT r STREQUAL "${status}")
  message(FATAL_ERROR "hloplan ${NAME}.hlo exited '${r}', not ${status}:\n"
          "${stderr}")
endif()
if(left)
  message(FATAL_ERROR "hloplan ${NAME}.hlo left output behind: ${left}")
endif()
if(NOT stdout STREQUAL "")
  message(FATAL_ERROR "hloplan ${NAME}.hlo wrote to stdout:\n${stdout}")
endif()
if(NOT stderr STREQUAL want)
  file(WRITE ${OUTDIR}/${NAME}.err ${stderr})
  execute_process(COMMAND diff -u ${DIR}/${NAME}.err ${OUTDIR}/${NAME}.err)
  message(FATAL_ERROR "the diagnostics for ${NAME}.hlo differ from "
          "${NAME}.err")
endif()
