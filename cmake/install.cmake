# Install rules and the CMake package: find_package(distgrid 0.2) gives
# distgrid::core (library and headers; needs only the standard library with
# threads and nlohmann/json) and the executables distgrid::distgrid and, when the
# audit is built, distgrid::distgrid-audit.
include(CMakePackageConfigHelpers)

set(DISTGRID_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/distgrid
  CACHE STRING "Where distgridConfig.cmake is installed, relative to the prefix")

set(distgrid_exported_targets distgrid_core distgrid)
if(TARGET distgrid_audit_tool)
  list(APPEND distgrid_exported_targets distgrid_audit_tool)
endif()
install(TARGETS ${distgrid_exported_targets} EXPORT distgridTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/include/distgrid DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(EXPORT distgridTargets NAMESPACE distgrid:: DESTINATION ${DISTGRID_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/distgridConfig.cmake.in
  ${PROJECT_BINARY_DIR}/distgridConfig.cmake INSTALL_DESTINATION ${DISTGRID_INSTALL_CMAKEDIR})
# 0.x: a minor version may change the interface, so 0.2 accepts 0.2.* only.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/distgridConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/distgridConfig.cmake ${PROJECT_BINARY_DIR}/distgridConfigVersion.cmake
  DESTINATION ${DISTGRID_INSTALL_CMAKEDIR})

# distgrid-audit's data directory (share/distgrid): the default budgets and the
# sources its reports cite, so the installed tool runs from any directory.
if(TARGET distgrid_audit_tool)
  install(FILES ${PROJECT_SOURCE_DIR}/audit/gates.json DESTINATION ${CMAKE_INSTALL_DATADIR}/distgrid/audit)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/include ${PROJECT_SOURCE_DIR}/core/src
    DESTINATION ${CMAKE_INSTALL_DATADIR}/distgrid/core)
endif()

install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/CHANGES.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")
