// The header compiles as C++17 with -Wall -Wextra -Wpedantic -Werror and links from C++.
#include <cstring>
#include <string>

#include "aeronc.h"
#include "aeronmd.h"
#include "test_util.h"

int main()
{
    CHECK(std::string(aeronrs_version_text()) == AERONRS_VERSION);
    CHECK(aeron_errmsg() != nullptr);
    std::printf("[  OK  ] header_cpp\n");
    return 0;
}
