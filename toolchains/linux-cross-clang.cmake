# Shared part of the Raspberry Pi toolchain files: clang + lld with --target and --sysroot against a
# Debian trixie sysroot made by targets/rpi/make-sysroot.sh (headers, crt files and libstdc++ 14 all
# come from the sysroot; bookworm's gcc-12 cross compilers would mix in their own glibc/libstdc++).
# Expects TERN_TRIPLE, TERN_DEB_ARCH and CMAKE_SYSTEM_PROCESSOR to be set by the including file.
set(CMAKE_SYSTEM_NAME Linux)
set(TERN_SYSROOT "${CMAKE_CURRENT_LIST_DIR}/../build-sysroots/${TERN_DEB_ARCH}" CACHE PATH "Debian sysroot from targets/rpi/make-sysroot.sh")
if(NOT EXISTS "${TERN_SYSROOT}/usr/lib/${TERN_TRIPLE}")
  message(FATAL_ERROR "No sysroot at ${TERN_SYSROOT}: run targets/rpi/make-sysroot.sh ${TERN_DEB_ARCH}")
endif()
set(CMAKE_SYSROOT "${TERN_SYSROOT}")
set(CMAKE_C_COMPILER clang)
set(CMAKE_CXX_COMPILER clang++)
set(CMAKE_C_COMPILER_TARGET ${TERN_TRIPLE})
set(CMAKE_CXX_COMPILER_TARGET ${TERN_TRIPLE})
# --as-needed: the device loads only the libraries tern calls (absl_status.pc lists ~40 Abseil libraries).
set(CMAKE_EXE_LINKER_FLAGS_INIT "-fuse-ld=lld -Wl,--as-needed")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-fuse-ld=lld -Wl,--as-needed")
set(CMAKE_FIND_ROOT_PATH "${TERN_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)   # flatc, python: the build machine's
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${TERN_SYSROOT}")
set(ENV{PKG_CONFIG_LIBDIR} "${TERN_SYSROOT}/usr/lib/${TERN_TRIPLE}/pkgconfig:${TERN_SYSROOT}/usr/share/pkgconfig")
# Tests run under qemu-user; targets/rpi/qemu-run.sh picks the CPU ($TERN_QEMU_CPU, default below).
set(CMAKE_CROSSCOMPILING_EMULATOR "${CMAKE_CURRENT_LIST_DIR}/../targets/rpi/qemu-run.sh;${TERN_DEB_ARCH};${TERN_SYSROOT}")
