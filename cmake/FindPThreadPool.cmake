# Finds pthreadpool (Debian: libpthreadpool-dev), which ships no CMake config.
# Defines the imported target PThreadPool::PThreadPool.
find_path(PTHREADPOOL_INCLUDE_DIR pthreadpool.h)
find_library(PTHREADPOOL_LIBRARY NAMES pthreadpool)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(PThreadPool REQUIRED_VARS PTHREADPOOL_LIBRARY PTHREADPOOL_INCLUDE_DIR)
if(PThreadPool_FOUND AND NOT TARGET PThreadPool::PThreadPool)
  find_package(Threads REQUIRED)
  add_library(PThreadPool::PThreadPool UNKNOWN IMPORTED)
  set_target_properties(PThreadPool::PThreadPool PROPERTIES
    IMPORTED_LOCATION "${PTHREADPOOL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${PTHREADPOOL_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES Threads::Threads)
endif()
mark_as_advanced(PTHREADPOOL_INCLUDE_DIR PTHREADPOOL_LIBRARY)
