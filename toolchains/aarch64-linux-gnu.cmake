# Raspberry Pi 3/4/5 (and other ARMv8-A boards) running 64-bit Raspberry Pi OS / Debian trixie.
# Tests run under `qemu-aarch64-static -cpu cortex-a76` (Pi 5); TERN_QEMU_CPU=cortex-a72 gives a Pi 4.
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(TERN_TRIPLE aarch64-linux-gnu)
set(TERN_DEB_ARCH arm64)
include("${CMAKE_CURRENT_LIST_DIR}/linux-cross-clang.cmake")
