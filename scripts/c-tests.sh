#!/usr/bin/env bash
# Builds c-tests/ against the staged package (find_package(aeronrs)) and runs CTest; then
# builds a project written for Aeron (c-tests/aeron-consumer: find_package(aeron),
# aeron::aeron and aeron::aeron_driver) and the same program through pkg-config aeron,
# with nothing but CMAKE_PREFIX_PATH / PKG_CONFIG_PATH pointing at the package, and runs
# them. With clang or an aarch64 gcc installed (.ci/run installs both) the header tests are
# also compiled with those.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build-c-package.sh
cmake -S c-tests -B target/c-tests -DCMAKE_PREFIX_PATH="$PWD/target/dist" -DCMAKE_BUILD_TYPE="${C_TESTS_BUILD_TYPE:-Debug}" >/dev/null
cmake --build target/c-tests -j2
(cd target/c-tests && ctest --output-on-failure -j2)

echo "c-tests: find_package(aeron) consumer (aeron::aeron, aeron::aeron_driver, _static)"
cmake -S c-tests/aeron-consumer -B target/aeron-consumer -DCMAKE_PREFIX_PATH="$PWD/target/dist" >/dev/null
cmake --build target/aeron-consumer -j2
(cd target/aeron-consumer && ctest --output-on-failure)

echo "c-tests: pkg-config aeron"
export PKG_CONFIG_PATH="$PWD/target/dist/lib/pkgconfig"
[ "$(pkg-config --modversion aeron)" = "1.48.0" ] || { echo "pkg-config aeron: wrong version" >&2; exit 1; }
# shellcheck disable=SC2046 # pkg-config prints separate flags
cc -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra -Wpedantic -Werror \
  $(pkg-config --cflags aeron) c-tests/test_agent_sample.c $(pkg-config --libs aeron) -lpthread -rdynamic \
  -o target/aeron-consumer/agent_sample_pkg_config
LD_LIBRARY_PATH="$PWD/target/dist/lib" timeout 120 target/aeron-consumer/agent_sample_pkg_config

# The installed headers with the other supported compiler and CPU: clang (C11, C++17) and
# gcc for aarch64 compile the header test and the sample-style program (no run).
flags=(-D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra -Wpedantic -Werror -I include -I c-tests -c -o /dev/null)
if command -v clang >/dev/null 2>&1; then
  echo "c-tests: headers with clang"
  for source in c-tests/test_util_headers.c c-tests/test_agent_sample.c; do
    clang -std=c11 "${flags[@]}" "$source"
  done
  clang++ -std=c++17 "${flags[@]}" c-tests/test_util_headers.cpp
fi
if command -v aarch64-linux-gnu-gcc >/dev/null 2>&1; then
  echo "c-tests: headers for aarch64"
  for source in c-tests/test_util_headers.c c-tests/test_agent_sample.c; do
    aarch64-linux-gnu-gcc -std=c11 "${flags[@]}" "$source"
  done
fi
