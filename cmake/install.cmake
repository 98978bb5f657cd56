# Install rules and the CMake package.  `cmake --install build --prefix P`
# puts under P: bin/hloplan, lib/libhloplan.a, include/hloplan.h, the man
# page, lib/cmake/hloplan/ (config, version, exported targets hloplan::hloplan
# and hloplan::lib, hloplan_add_plan) and lib/pkgconfig/hloplan.pc.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The names a consumer sees, inside this build too (add_subdirectory or
# FetchContent users get hloplan_add_plan from the include below).
set_target_properties(hloplan_public PROPERTIES EXPORT_NAME lib)
add_library(hloplan::lib ALIAS hloplan_public)
add_executable(hloplan::hloplan ALIAS hloplan)
include(${CMAKE_CURRENT_LIST_DIR}/hloplanAddPlan.cmake)

install(TARGETS hloplan hloplan_public EXPORT hloplanTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/hloplan.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/doc/hloplan.1
  DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

set(hloplan_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/hloplan)
install(EXPORT hloplanTargets NAMESPACE hloplan::
  DESTINATION ${hloplan_cmake_dir})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/hloplanConfig.cmake.in
  ${PROJECT_BINARY_DIR}/hloplanConfig.cmake
  INSTALL_DESTINATION ${hloplan_cmake_dir})
# 0.x: a minor version may break the API, so only the same minor matches.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/hloplanConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/hloplanConfig.cmake
  ${PROJECT_BINARY_DIR}/hloplanConfigVersion.cmake
  ${CMAKE_CURRENT_LIST_DIR}/hloplanAddPlan.cmake
  DESTINATION ${hloplan_cmake_dir})

# pkg-config: paths relative to the .pc file (${pcfiledir}), so that the
# installed tree works from whatever prefix `cmake --install` was given.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(hloplan_pc_prefix "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH hloplan_pc_up "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" /p)
  string(REGEX REPLACE "/$" "" hloplan_pc_up "${hloplan_pc_up}")
  set(hloplan_pc_prefix "\${pcfiledir}/${hloplan_pc_up}")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/hloplan.pc.in
  ${PROJECT_BINARY_DIR}/hloplan.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/hloplan.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
