# Cross-compiling for aarch64 Linux with Debian's cross toolchain
# (g++-aarch64-linux-gnu) against arm64 multiarch libraries
# (dpkg --add-architecture arm64; libfoo-dev:arm64). Tests run through
# qemu-user (CMAKE_CROSSCOMPILING_EMULATOR), so ctest works as on a native
# build. Used by scripts/test-cross.sh aarch64.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# Headers and libraries from the multiarch tree; programs (protoc) from the host.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /usr)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
# No -L /usr/aarch64-linux-gnu: that prefix holds libc6-arm64-cross's ld.so
# (2.36-8cross1) while libc.so.6 and every other library then come from the
# multiarch /usr/lib/aarch64-linux-gnu (libc6:arm64, 2.36-9+deb12uN); the
# mismatched loader and libc spin forever in the first pthread_create
# (OpenBLAS's thread init at load, then Tessera's thread pool). Without -L
# qemu takes the multiarch /lib/ld-linux-aarch64.so.1, which matches libc.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static)
