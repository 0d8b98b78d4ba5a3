# Raspberry Pi 2/3/4 running 32-bit Raspberry Pi OS (armhf): ARMv7-A with NEON, hard float.
# ARMv6 boards (Pi 1, Pi Zero / Zero W) are not supported: XNNPACK needs NEON.
set(CMAKE_SYSTEM_PROCESSOR armv7-a)
set(TERN_TRIPLE arm-linux-gnueabihf)
set(TERN_DEB_ARCH armhf)
set(CMAKE_C_FLAGS_INIT "-march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard")
set(CMAKE_CXX_FLAGS_INIT "-march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard")
include("${CMAKE_CURRENT_LIST_DIR}/linux-cross-clang.cmake")
