# Runs hloplan on one bad input from tests/errors, as a user would
# (cd errors && hloplan NAME.hlo -o out.h), and requires exit status 1,
# stderr equal byte for byte to NAME.err, and no output file left behind.
# -D HLOPLAN= NAME= DIR= (tests/errors) OUTDIR= (a scratch directory)
# To regenerate one on purpose: cd tests/errors &&
#   hloplan NAME.hlo -o /tmp/out.h 2> NAME.err   (then read the diff)
set(out ${OUTDIR}/${NAME}.h)
file(MAKE_DIRECTORY ${OUTDIR})
file(REMOVE ${out})
execute_process(COMMAND ${HLOPLAN} ${NAME}.hlo -o ${out}
                WORKING_DIRECTORY ${DIR} RESULT_VARIABLE r
                OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
file(READ ${DIR}/${NAME}.err want)
file(GLOB left ${out} ${out}.tmp*)
if(NOT r STREQUAL "1")
  message(FATAL_ERROR "hloplan ${NAME}.hlo exited '${r}', not 1:\n${stderr}")
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
