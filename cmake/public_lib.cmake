# The library an embedder links (libhloplan.a, hloplan::lib): every object
# of hloplan_lib linked into one relocatable object (ld -r) in which only
# hloplan_* stays global (objcopy), archived alone.  hloplan_lib, which the
# tool and the tests link, keeps the internal names (pack, colocate, the
# scanner's hlo_*); a program linked with libhloplan.a sees none of them,
# so its own functions of those names neither clash nor get bound to ours.
if(NOT CMAKE_OBJCOPY OR NOT CMAKE_LINKER)
  message(FATAL_ERROR "libhloplan.a needs ld and objcopy (binutils or LLVM)")
endif()
set(hloplan_public_obj ${CMAKE_BINARY_DIR}/hloplan_public.o)
add_custom_command(OUTPUT ${hloplan_public_obj}
  COMMAND ${CMAKE_LINKER} -r -o ${hloplan_public_obj}.all
          --whole-archive $<TARGET_FILE:hloplan_lib> --no-whole-archive
  COMMAND ${CMAKE_OBJCOPY} --wildcard --keep-global-symbol=hloplan_*
          ${hloplan_public_obj}.all ${hloplan_public_obj}
  COMMAND ${CMAKE_COMMAND} -E remove ${hloplan_public_obj}.all
  DEPENDS hloplan_lib
  COMMENT "libhloplan.a: one object, only hloplan_* global"
  VERBATIM)
set_source_files_properties(${hloplan_public_obj} PROPERTIES
  EXTERNAL_OBJECT TRUE GENERATED TRUE)
add_library(hloplan_public STATIC ${hloplan_public_obj})
set_target_properties(hloplan_public PROPERTIES OUTPUT_NAME hloplan
  LINKER_LANGUAGE C)
target_include_directories(hloplan_public INTERFACE
  $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>)
target_link_libraries(hloplan_public INTERFACE Threads::Threads)
