#!/usr/bin/env bash
# Builds c-tests/ against the staged package (find_package(aeronrs)) and runs CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build-c-package.sh
cmake -S c-tests -B target/c-tests -DCMAKE_PREFIX_PATH="$PWD/target/dist" -DCMAKE_BUILD_TYPE="${C_TESTS_BUILD_TYPE:-Debug}" >/dev/null
cmake --build target/c-tests -j2
cd target/c-tests && ctest --output-on-failure -j2
