# hloplan_add_plan(<target> <model.hlo> [OUTPUT <name.h>] [TARGET gpu|tpu|all]
#                  [OPTIONS <hloplan flags>...])
# Plans the model at build time into ${CMAKE_CURRENT_BINARY_DIR}/hloplan/
# <target>/<name.h> (default <model>_plan.h) and puts that directory on the
# target's include path.  The command re-runs when the model or the hloplan
# tool changes, and not otherwise (a stamp file records the run, for Make);
# hloplan leaves a header whose bytes are unchanged alone, so with ninja's
# restat nothing that includes it is rebuilt.
include_guard(GLOBAL)

# Depfiles from custom commands, with paths as written (CMake >= 3.20).
if(POLICY CMP0116)
  cmake_policy(SET CMP0116 NEW)
endif()

function(hloplan_add_plan target model)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "OUTPUT;TARGET" "OPTIONS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR
      "hloplan_add_plan: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "hloplan_add_plan: there is no target '${target}'")
  endif()
  if(NOT ARG_TARGET)
    set(ARG_TARGET all)
  elseif(NOT ARG_TARGET MATCHES "^(gpu|tpu|all)$")
    message(FATAL_ERROR
      "hloplan_add_plan: TARGET is gpu, tpu or all, not '${ARG_TARGET}'")
  endif()
  get_filename_component(model "${model}" ABSOLUTE
                         BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_filename_component(stem "${model}" NAME_WE)
  if(NOT ARG_OUTPUT)
    set(ARG_OUTPUT "${stem}_plan.h")
  endif()

  set(dir "${CMAKE_CURRENT_BINARY_DIR}/hloplan/${target}")
  set(header "${dir}/${ARG_OUTPUT}")
  get_filename_component(header_dir "${header}" DIRECTORY)
  file(MAKE_DIRECTORY "${header_dir}")
  # The depfile lists the model, which DEPENDS names too; it is used where
  # the generator reads depfiles, so that hloplan's view of its input wins.
  # Its target is the stamp: ninja wants the command's first output.
  set(dep_flags "")
  set(dep_args "")
  if(CMAKE_GENERATOR MATCHES "Ninja" OR (CMAKE_GENERATOR MATCHES "Makefiles"
     AND NOT CMAKE_VERSION VERSION_LESS 3.20))
    set(dep_flags -MD -MF "${header}.d" -MQ "${header}.stamp")
    set(dep_args DEPFILE "${header}.d")
  endif()
  add_custom_command(
    OUTPUT "${header}.stamp" "${header}"
    COMMAND hloplan::hloplan "${model}" --target=${ARG_TARGET} ${ARG_OPTIONS}
            -o "${header}" ${dep_flags}
    COMMAND "${CMAKE_COMMAND}" -E touch "${header}.stamp"
    DEPENDS "${model}" hloplan::hloplan
    ${dep_args}
    COMMENT "hloplan: planning ${ARG_OUTPUT} from ${stem}"
    VERBATIM)
  target_sources(${target} PRIVATE "${header}")
  target_include_directories(${target} PRIVATE "${dir}")
endfunction()
