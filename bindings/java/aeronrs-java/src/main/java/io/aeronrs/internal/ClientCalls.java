package io.aeronrs.internal;

import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** Downcalls of the client and its context (aeronc.h). */
public final class ClientCalls
{
    private ClientCalls()
    {
    }

    public static final MethodHandle CONTEXT_INIT = NativeLibrary.downcall(
        "aeron_context_init", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    public static final MethodHandle CONTEXT_CLOSE = NativeLibrary.downcall(
        "aeron_context_close", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    public static final MethodHandle CONTEXT_GET_DIR = NativeLibrary.downcall(
        "aeron_context_get_dir", FunctionDescriptor.of(ADDRESS, ADDRESS));
    /** {@code (context, handler, clientd)}: error, close and counter handlers. */
    public static final FunctionDescriptor SET_HANDLER = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
    public static final MethodHandle CONTEXT_SET_ERROR_HANDLER = NativeLibrary.downcall(
        "aeron_context_set_error_handler", SET_HANDLER);
    public static final MethodHandle CONTEXT_SET_ON_CLOSE_CLIENT = NativeLibrary.downcall(
        "aeron_context_set_on_close_client", SET_HANDLER);
    public static final MethodHandle CONTEXT_SET_ON_AVAILABLE_COUNTER = NativeLibrary.downcall(
        "aeron_context_set_on_available_counter", SET_HANDLER);
    public static final MethodHandle CONTEXT_SET_ON_UNAVAILABLE_COUNTER = NativeLibrary.downcall(
        "aeron_context_set_on_unavailable_counter", SET_HANDLER);
    public static final MethodHandle INIT = NativeLibrary.downcall(
        "aeron_init", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    public static final MethodHandle START = NativeLibrary.downcall(
        "aeron_start", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    public static final MethodHandle MAIN_DO_WORK = NativeLibrary.downcall(
        "aeron_main_do_work", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    public static final MethodHandle CLOSE = NativeLibrary.downcall(
        "aeron_close", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    public static final MethodHandle IS_CLOSED = NativeLibrary.downcall(
        "aeron_is_closed", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS));
    public static final MethodHandle CLIENT_ID = NativeLibrary.downcall(
        "aeron_client_id", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    public static final MethodHandle NEXT_CORRELATION_ID = NativeLibrary.downcall(
        "aeron_next_correlation_id", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    public static final MethodHandle COUNTERS_READER = NativeLibrary.downcall(
        "aeron_counters_reader", FunctionDescriptor.of(ADDRESS, ADDRESS));
    public static final MethodHandle IS_DRIVER_ACTIVE = NativeLibrary.downcall(
        "aeron_is_driver_active", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS, JAVA_LONG, ADDRESS));

    public static final MethodHandle ASYNC_ADD_PUBLICATION = NativeLibrary.downcall(
        "aeron_async_add_publication", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
    public static final MethodHandle ASYNC_ADD_PUBLICATION_POLL = NativeLibrary.downcall(
        "aeron_async_add_publication_poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    public static final MethodHandle ASYNC_ADD_EXCLUSIVE_PUBLICATION = NativeLibrary.downcall(
        "aeron_async_add_exclusive_publication", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
    public static final MethodHandle ASYNC_ADD_EXCLUSIVE_PUBLICATION_POLL = NativeLibrary.downcall(
        "aeron_async_add_exclusive_publication_poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    public static final MethodHandle ASYNC_ADD_SUBSCRIPTION = NativeLibrary.downcall(
        "aeron_async_add_subscription", FunctionDescriptor.of(
            JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    public static final MethodHandle ASYNC_ADD_SUBSCRIPTION_POLL = NativeLibrary.downcall(
        "aeron_async_add_subscription_poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    public static final MethodHandle ASYNC_ADD_COUNTER = NativeLibrary.downcall(
        "aeron_async_add_counter", FunctionDescriptor.of(
            JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG));
    public static final MethodHandle ASYNC_ADD_STATIC_COUNTER = NativeLibrary.downcall(
        "aeron_async_add_static_counter", FunctionDescriptor.of(
            JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG));
    public static final MethodHandle ASYNC_ADD_COUNTER_POLL = NativeLibrary.downcall(
        "aeron_async_add_counter_poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    public static final MethodHandle ASYNC_ADD_PUBLICATION_REGISTRATION_ID = NativeLibrary.downcall(
        "aeron_async_add_publication_get_registration_id", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    public static final MethodHandle ASYNC_ADD_EXCLUSIVE_PUBLICATION_REGISTRATION_ID = NativeLibrary.downcall(
        "aeron_async_add_exclusive_exclusive_publication_get_registration_id", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    public static final MethodHandle ASYNC_ADD_SUBSCRIPTION_REGISTRATION_ID = NativeLibrary.downcall(
        "aeron_async_add_subscription_get_registration_id", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    /** Any destination command's handle, as in Aeron. */
    public static final MethodHandle ASYNC_DESTINATION_POLL = NativeLibrary.downcall(
        "aeron_publication_async_destination_poll", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    public static final MethodHandle PUBLICATION_CONSTANTS = NativeLibrary.downcall(
        "aeron_publication_constants", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    public static final MethodHandle EXCLUSIVE_PUBLICATION_CONSTANTS = NativeLibrary.downcall(
        "aeron_exclusive_publication_constants", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    public static final MethodHandle COUNTER_ADDR = NativeLibrary.downcall(
        "aeron_counter_addr", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    public static final MethodHandle COUNTER_CONSTANTS = NativeLibrary.downcall(
        "aeron_counter_constants", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    public static final MethodHandle COUNTER_CLOSE = NativeLibrary.downcall(
        "aeron_counter_close", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    public static final MethodHandle COUNTER_IS_CLOSED = NativeLibrary.downcall(
        "aeron_counter_is_closed", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS));
}
