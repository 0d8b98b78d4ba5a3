# Finds XNNPACK (Debian: libxnnpack-dev, the 2024-11-08 snapshot), which ships no CMake config.
# Defines the imported target XNNPACK::XNNPACK. Requires the dynamic-quantization operators
# (xnn_create_fully_connected_nc_qd8_f32_qc8w, xnn_create_convert_nc_f32_qd8).
find_path(XNNPACK_INCLUDE_DIR xnnpack.h)
find_library(XNNPACK_LIBRARY NAMES XNNPACK)
# A static XNNPACK built by its own CMake keeps its microkernels in a second archive.
find_library(XNNPACK_MICROKERNELS_LIBRARY NAMES microkernels-prod)
if(XNNPACK_INCLUDE_DIR AND EXISTS "${XNNPACK_INCLUDE_DIR}/xnnpack.h")
  file(STRINGS "${XNNPACK_INCLUDE_DIR}/xnnpack.h" _xnn_qd8 REGEX "xnn_create_fully_connected_nc_qd8_f32_qc8w")
  if(NOT _xnn_qd8)
    message(FATAL_ERROR "XNNPACK at ${XNNPACK_INCLUDE_DIR} lacks fully_connected_nc_qd8_f32_qc8w: "
                        "install trixie's libxnnpack-dev (scripts/setup.sh)")
  endif()
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(XNNPACK REQUIRED_VARS XNNPACK_LIBRARY XNNPACK_INCLUDE_DIR)
if(XNNPACK_FOUND AND NOT TARGET XNNPACK::XNNPACK)
  add_library(XNNPACK::XNNPACK UNKNOWN IMPORTED)
  set_target_properties(XNNPACK::XNNPACK PROPERTIES
    IMPORTED_LOCATION "${XNNPACK_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${XNNPACK_INCLUDE_DIR}")
  if(XNNPACK_LIBRARY MATCHES "\\.a$" AND XNNPACK_MICROKERNELS_LIBRARY)
    set_property(TARGET XNNPACK::XNNPACK APPEND PROPERTY INTERFACE_LINK_LIBRARIES "${XNNPACK_MICROKERNELS_LIBRARY}")
  endif()
endif()
mark_as_advanced(XNNPACK_INCLUDE_DIR XNNPACK_LIBRARY XNNPACK_MICROKERNELS_LIBRARY)
