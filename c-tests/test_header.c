/* The header compiles as strict C11 with -Wall -Wextra -Wpedantic -Werror, both upstream
 * header names work, and the version macros match the library. */
#include "aeronc.h"
#include "aeronmd.h"
#include "test_util.h"

static void version_matches_library(void)
{
    CHECK(strcmp(aeronrs_version_text(), AERONRS_VERSION) == 0);
    CHECK_EQ_LL(aeron_version_major(), 1);
    CHECK_EQ_LL(aeron_version_minor(), 48);
    CHECK(strcmp(aeron_version_text(), "1.48.0") == 0);
    CHECK(aeron_version_full() != NULL);
}

static void errmsg_is_never_null(void)
{
    CHECK(aeron_errmsg() != NULL);
}

int main(void)
{
    RUN(version_matches_library);
    RUN(errmsg_is_never_null);
    return 0;
}
