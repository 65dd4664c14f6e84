/* Aeron's platform switches (util/aeron_platform.h): AERON_COMPILER_GCC (gcc and clang,
 * with AERON_COMPILER_LLVM for clang) and AERON_CPU_X64 / AERON_CPU_ARM, which Aeron's
 * headers and programs test. aeronrs builds for Linux on x86-64 and aarch64 with gcc or
 * clang; anything else stops here with a message. */
#ifndef AERON_DRIVER_PLATFORM_H
#define AERON_DRIVER_PLATFORM_H

#if defined(__GNUC__)
#define AERON_COMPILER_GCC 1
#if defined(__llvm__)
#define AERON_COMPILER_LLVM 1
#endif
#else
#error "aeronrs's headers need gcc or clang"
#endif

#if defined(__x86_64__)
#define AERON_CPU_X64 1
#elif defined(__aarch64__)
#define AERON_CPU_ARM 1
#else
#error "aeronrs's headers support x86-64 and aarch64"
#endif

#endif
