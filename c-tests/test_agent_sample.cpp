// The sample-style agent program (test_agent_sample.c) compiled as C++17.
#include "test_agent_sample.c"
