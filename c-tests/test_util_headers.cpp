// Aeron's utility headers from C++17: the same checks as test_util_headers.c, compiled as
// C++ with -Wall -Wextra -Wpedantic -Werror, so C++ programs written for Aeron build too.
#include "test_util_headers.c"
