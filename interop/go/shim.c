// C side of the cgo bindings: fragment handlers that hand each message to Go, found by the
// cgo.Handle passed as clientd.
#include "aeronc.h"
#include "_cgo_export.h"

void aeronrs_go_on_message(void *clientd, const uint8_t *buffer, size_t length, aeron_header_t *header)
{
    aeron_header_values_t values;
    aeron_header_values(header, &values);
    goOnMessage((uintptr_t)clientd, (uint8_t *)buffer, length, values.frame.session_id,
        aeron_header_position(header));
}

int aeronrs_go_create_assembler(aeron_fragment_assembler_t **assembler, uintptr_t handle)
{
    return aeron_fragment_assembler_create(assembler, aeronrs_go_on_message, (void *)handle);
}

int aeronrs_go_poll(aeron_subscription_t *subscription, aeron_fragment_assembler_t *assembler, size_t limit)
{
    return aeron_subscription_poll(subscription, aeron_fragment_assembler_handler, assembler, limit);
}
