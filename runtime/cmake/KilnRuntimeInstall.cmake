# Installs libkiln.so, kiln/kiln.h, a CMake package (find_package(kiln)
# gives the target kiln::runtime) and a pkg-config file (kiln.pc).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS kiln_runtime_shared EXPORT kilnTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${CMAKE_CURRENT_SOURCE_DIR}/include/kiln/kiln.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln)

set(KILN_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)
install(EXPORT kilnTargets NAMESPACE kiln:: DESTINATION ${KILN_CMAKE_INSTALL_DIR})
configure_package_config_file(
  ${CMAKE_CURRENT_SOURCE_DIR}/cmake/kilnConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/kilnConfig.cmake
  INSTALL_DESTINATION ${KILN_CMAKE_INSTALL_DIR})
write_basic_package_version_file(
  ${CMAKE_CURRENT_BINARY_DIR}/kilnConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/kilnConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/kilnConfigVersion.cmake
  DESTINATION ${KILN_CMAKE_INSTALL_DIR})

configure_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/kiln.pc.in
               ${CMAKE_CURRENT_BINARY_DIR}/kiln.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/kiln.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
