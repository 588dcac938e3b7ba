# cmake --install: libtessera.so, the public headers, the CLI, a CMake
# package (find_package(Tessera) -> Tessera::tessera) and tessera.pc.
# libonnxruntime.so.1 installs only as the "onnxruntime" component, under
# lib/tessera/: on the loader's path it would stand in for a real ONNX
# Runtime in every program (docs/embedding.md).
include(CMakePackageConfigHelpers)

set(TESSERA_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Tessera)
set(TESSERA_PKGCONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(TARGETS tessera_cpp EXPORT TesseraTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/tessera DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h")
install(TARGETS tessera RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS tessera_onnxruntime LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/tessera
  COMPONENT onnxruntime EXCLUDE_FROM_ALL)

install(EXPORT TesseraTargets NAMESPACE Tessera:: DESTINATION ${TESSERA_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/TesseraConfig.cmake.in
  ${CMAKE_BINARY_DIR}/TesseraConfig.cmake INSTALL_DESTINATION ${TESSERA_CMAKE_DIR})
# 0.x: a new minor version may change the API.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/TesseraConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/TesseraConfig.cmake ${CMAKE_BINARY_DIR}/TesseraConfigVersion.cmake
  DESTINATION ${TESSERA_CMAKE_DIR})

# The .pc file finds its prefix from its own folder, so it stays right
# under any `cmake --install --prefix`.
file(RELATIVE_PATH TESSERA_PC_TO_PREFIX /prefix/${TESSERA_PKGCONFIG_DIR} /prefix)
configure_file(${CMAKE_CURRENT_LIST_DIR}/tessera.pc.in ${CMAKE_BINARY_DIR}/tessera.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/tessera.pc DESTINATION ${TESSERA_PKGCONFIG_DIR})
