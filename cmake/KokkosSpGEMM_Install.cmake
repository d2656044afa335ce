include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(_targets kokkosspgemm kokkosspgemm_testing)
if(KokkosSpGEMM_HAS_TPETRA)
  list(APPEND _targets kokkosspgemm_tpetra)
endif()
install(TARGETS ${_targets} EXPORT KokkosSpGEMMTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Under include/KokkosSpGEMM/: our folder names (impl/, io/, ...) would clash with others' in a shared prefix.
install(DIRECTORY src/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/KokkosSpGEMM
  FILES_MATCHING PATTERN "*.hpp" PATTERN "tool" EXCLUDE)
install(FILES ${PROJECT_BINARY_DIR}/src/KokkosSpGEMM_Config.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/KokkosSpGEMM)

set(_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/KokkosSpGEMM)
install(EXPORT KokkosSpGEMMTargets NAMESPACE KokkosSpGEMM:: DESTINATION ${_cmake_dir})
# The config remembers where Kokkos was found so that a consumer needs no -DKokkos_ROOT of its own.
set(KokkosSpGEMM_KOKKOS_DIR "${Kokkos_DIR}")
set(KokkosSpGEMM_KOKKOSKERNELS_DIR "${KokkosKernels_DIR}")
get_filename_component(KokkosSpGEMM_TPETRA_DIR "${KokkosSpGEMM_TPETRA_CONFIG}" DIRECTORY)
configure_package_config_file(cmake/KokkosSpGEMMConfig.cmake.in
  ${PROJECT_BINARY_DIR}/KokkosSpGEMMConfig.cmake INSTALL_DESTINATION ${_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/KokkosSpGEMMConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/KokkosSpGEMMConfig.cmake ${PROJECT_BINARY_DIR}/KokkosSpGEMMConfigVersion.cmake
  cmake/KokkosSpGEMM_Dependencies.cmake DESTINATION ${_cmake_dir})
