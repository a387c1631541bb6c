// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.C_LONG;
import static io.mlx5j.bindings.CTypes.C_POINTER;
import static io.mlx5j.bindings.CTypes.U16;
import static io.mlx5j.bindings.CTypes.U8;

/**
 * Downcalls to the functions librdmacm exports (rdma/rdma_cma.h, rdma-core 44), in the shape of {@link Verbs}: one
 * lazily linked holder per function, method names are the C names. librdmacm reports every failure as -1 (or NULL)
 * plus errno, so those functions take a {@link CallState} segment first.
 * <p>
 * None of these is {@code critical}: each one talks to {@code /dev/infiniband/rdma_cm} (real or emulated) and some
 * block (rdma_get_cm_event on a blocking channel, rdma_destroy_id until its events are acknowledged).
 *
 * <p>Thread model: stateless; any thread may call these, with the thread safety the C function itself documents.
 */
public final class Rdmacm
{
    private static final Linker.Option[] NONE = {};
    private static final Linker.Option[] CAPTURE = {CallState.OPTION};

    private Rdmacm()
    {
    }

    private static final class rdma_create_event_channel$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(
            NativeLibs.rdmacm("rdma_create_event_channel"), DESC, CAPTURE);
    }

    /**
     * struct rdma_event_channel *rdma_create_event_channel(void): NULL + errno on failure.
     * {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @return what {@code rdma_create_event_channel} returns ({@code struct rdma_event_channel *}); see man
     *         rdma_create_event_channel(3)
     */
    public static MemorySegment rdma_create_event_channel(final MemorySegment callState)
    {
        try
        {
            return (MemorySegment) rdma_create_event_channel$.HANDLE.invokeExact(callState);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_create_event_channel", ex);
        }
    }

    private static final class rdma_destroy_event_channel$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(
            NativeLibs.rdmacm("rdma_destroy_event_channel"), DESC, NONE);
    }

    /**
     * void rdma_destroy_event_channel(struct rdma_event_channel *channel): every id on it must be destroyed first.
     *
     * @param channel the C argument {@code struct rdma_event_channel *channel}
     */
    public static void rdma_destroy_event_channel(final MemorySegment channel)
    {
        try
        {
            rdma_destroy_event_channel$.HANDLE.invokeExact(channel);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_destroy_event_channel", ex);
        }
    }

    private static final class rdma_create_id$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_POINTER, C_INT);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.rdmacm("rdma_create_id"), DESC, CAPTURE);
    }

    /**
     * int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context,
     * enum rdma_port_space ps): 0, or -1 + errno. {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param channel the C argument {@code struct rdma_event_channel *channel}
     * @param id the C argument {@code struct rdma_cm_id **id}
     * @param context the C argument {@code void *context}
     * @param ps the C argument {@code enum rdma_port_space ps}
     * @return 0 on success, or -1 with errno left in {@code callState}; see man rdma_create_id(3)
     */
    public static int rdma_create_id(final MemorySegment callState, final MemorySegment channel, final MemorySegment id,
        final MemorySegment context, final int ps)
    {
        try
        {
            return (int) rdma_create_id$.HANDLE.invokeExact(callState, channel, id, context, ps);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_create_id", ex);
        }
    }

    private static final class rdma_destroy_id$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.rdmacm("rdma_destroy_id"), DESC, CAPTURE);
    }

    /**
     * int rdma_destroy_id(struct rdma_cm_id *id): waits until every event of the id is acknowledged; 0, or -1 + errno.
     * {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param id the C argument {@code struct rdma_cm_id *id}
     * @return 0 on success, or -1 with errno left in {@code callState}; see man rdma_destroy_id(3)
     */
    public static int rdma_destroy_id(final MemorySegment callState, final MemorySegment id)
    {
        try
        {
            return (int) rdma_destroy_id$.HANDLE.invokeExact(callState, id);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_destroy_id", ex);
        }
    }

    private static final class rdma_bind_addr$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.rdmacm("rdma_bind_addr"), DESC, CAPTURE);
    }

    /**
     * int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr): 0, or -1 + errno.
     * {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param id the C argument {@code struct rdma_cm_id *id}
     * @param addr the C argument {@code struct sockaddr *addr}
     * @return 0 on success, or -1 with errno left in {@code callState}; see man rdma_bind_addr(3)
     */
    public static int rdma_bind_addr(final MemorySegment callState, final MemorySegment id, final MemorySegment addr)
    {
        try
        {
            return (int) rdma_bind_addr$.HANDLE.invokeExact(callState, id, addr);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_bind_addr", ex);
        }
    }

    private static final class rdma_resolve_addr$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_POINTER, C_INT);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.rdmacm("rdma_resolve_addr"), DESC, CAPTURE);
    }

    /**
     * int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr, struct sockaddr *dst_addr,
     * int timeout_ms): starts resolution; ADDR_RESOLVED or ADDR_ERROR follows. 0, or -1 + errno.
     * {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param id the C argument {@code struct rdma_cm_id *id}
     * @param src_addr the C argument {@code struct sockaddr *src_addr}
     * @param dst_addr the C argument {@code struct sockaddr *dst_addr}
     * @param timeout_ms the C argument {@code int timeout_ms}
     * @return 0 on success, or -1 with errno left in {@code callState}; see man rdma_resolve_addr(3)
     */
    public static int rdma_resolve_addr(final MemorySegment callState, final MemorySegment id,
        final MemorySegment src_addr, final MemorySegment dst_addr, final int timeout_ms)
    {
        try
        {
            return (int) rdma_resolve_addr$.HANDLE.invokeExact(callState, id, src_addr, dst_addr, timeout_ms);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_resolve_addr", ex);
        }
    }

    private static final class rdma_resolve_route$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_INT);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.rdmacm("rdma_resolve_route"), DESC, CAPTURE);
    }

    /**
     * int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms): ROUTE_RESOLVED or ROUTE_ERROR follows.
     * 0, or -1 + errno. {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param id the C argument {@code struct rdma_cm_id *id}
     * @param timeout_ms the C argument {@code int timeout_ms}
     * @return 0 on success, or -1 with errno left in {@code callState}; see man rdma_resolve_route(3)
     */
    public static int rdma_resolve_route(final MemorySegment callState, final MemorySegment id, final int timeout_ms)
    {
        try
        {
            return (int) rdma_resolve_route$.HANDLE.invokeExact(callState, id, timeout_ms);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_resolve_route", ex);
        }
    }

    private static final class rdma_connect$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.rdmacm("rdma_connect"), DESC, CAPTURE);
    }

    /**
     * int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param): 0, or -1 + errno.
     * {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param id the C argument {@code struct rdma_cm_id *id}
     * @param conn_param the C argument {@code struct rdma_conn_param *conn_param}
     * @return 0 on success, or -1 with errno left in {@code callState}; see man rdma_connect(3)
     */
    public static int rdma_connect(final MemorySegment callState, final MemorySegment id,
        final MemorySegment conn_param)
    {
        try
        {
            return (int) rdma_connect$.HANDLE.invokeExact(callState, id, conn_param);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_connect", ex);
        }
    }

    private static final class rdma_establish$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.rdmacm("rdma_establish"), DESC, CAPTURE);
    }

    /**
     * int rdma_establish(struct rdma_cm_id *id): completes an active connect whose QP the application moved itself
     * (no QP on the id). 0, or -1 + errno. {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param id the C argument {@code struct rdma_cm_id *id}
     * @return 0 on success, or -1 with errno left in {@code callState}; see man rdma_establish(3)
     */
    public static int rdma_establish(final MemorySegment callState, final MemorySegment id)
    {
        try
        {
            return (int) rdma_establish$.HANDLE.invokeExact(callState, id);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_establish", ex);
        }
    }

    private static final class rdma_listen$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_INT);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.rdmacm("rdma_listen"), DESC, CAPTURE);
    }

    /**
     * int rdma_listen(struct rdma_cm_id *id, int backlog): 0, or -1 + errno. {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param id the C argument {@code struct rdma_cm_id *id}
     * @param backlog the C argument {@code int backlog}
     * @return 0 on success, or -1 with errno left in {@code callState}; see man rdma_listen(3)
     */
    public static int rdma_listen(final MemorySegment callState, final MemorySegment id, final int backlog)
    {
        try
        {
            return (int) rdma_listen$.HANDLE.invokeExact(callState, id, backlog);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_listen", ex);
        }
    }

    private static final class rdma_accept$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.rdmacm("rdma_accept"), DESC, CAPTURE);
    }

    /**
     * int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param): 0, or -1 + errno.
     * {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param id the C argument {@code struct rdma_cm_id *id}
     * @param conn_param the C argument {@code struct rdma_conn_param *conn_param}
     * @return 0 on success, or -1 with errno left in {@code callState}; see man rdma_accept(3)
     */
    public static int rdma_accept(final MemorySegment callState, final MemorySegment id, final MemorySegment conn_param)
    {
        try
        {
            return (int) rdma_accept$.HANDLE.invokeExact(callState, id, conn_param);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_accept", ex);
        }
    }

    private static final class rdma_reject$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, U8);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.rdmacm("rdma_reject"), DESC, CAPTURE);
    }

    /**
     * int rdma_reject(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len): 0, or -1 + errno.
     * {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param id the C argument {@code struct rdma_cm_id *id}
     * @param private_data the C argument {@code const void *private_data}
     * @param private_data_len the C argument {@code uint8_t private_data_len}
     * @return 0 on success, or -1 with errno left in {@code callState}; see man rdma_reject(3)
     */
    public static int rdma_reject(final MemorySegment callState, final MemorySegment id,
        final MemorySegment private_data, final byte private_data_len)
    {
        try
        {
            return (int) rdma_reject$.HANDLE.invokeExact(callState, id, private_data, private_data_len);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_reject", ex);
        }
    }

    private static final class rdma_disconnect$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.rdmacm("rdma_disconnect"), DESC, CAPTURE);
    }

    /**
     * int rdma_disconnect(struct rdma_cm_id *id): 0, or -1 + errno. {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param id the C argument {@code struct rdma_cm_id *id}
     * @return 0 on success, or -1 with errno left in {@code callState}; see man rdma_disconnect(3)
     */
    public static int rdma_disconnect(final MemorySegment callState, final MemorySegment id)
    {
        try
        {
            return (int) rdma_disconnect$.HANDLE.invokeExact(callState, id);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_disconnect", ex);
        }
    }

    private static final class rdma_join_multicast$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.rdmacm("rdma_join_multicast"), DESC, CAPTURE);
    }

    /**
     * int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr, void *context): MULTICAST_JOIN or
     * MULTICAST_ERROR follows. 0, or -1 + errno. {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param id the C argument {@code struct rdma_cm_id *id}
     * @param addr the C argument {@code struct sockaddr *addr}
     * @param context the C argument {@code void *context}
     * @return 0 on success, or -1 with errno left in {@code callState}; see man rdma_join_multicast(3)
     */
    public static int rdma_join_multicast(final MemorySegment callState, final MemorySegment id,
        final MemorySegment addr, final MemorySegment context)
    {
        try
        {
            return (int) rdma_join_multicast$.HANDLE.invokeExact(callState, id, addr, context);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_join_multicast", ex);
        }
    }

    private static final class rdma_leave_multicast$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(
            NativeLibs.rdmacm("rdma_leave_multicast"), DESC, CAPTURE);
    }

    /**
     * int rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr): 0, or -1 + errno.
     * {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param id the C argument {@code struct rdma_cm_id *id}
     * @param addr the C argument {@code struct sockaddr *addr}
     * @return 0 on success, or -1 with errno left in {@code callState}; see man rdma_leave_multicast(3)
     */
    public static int rdma_leave_multicast(final MemorySegment callState, final MemorySegment id,
        final MemorySegment addr)
    {
        try
        {
            return (int) rdma_leave_multicast$.HANDLE.invokeExact(callState, id, addr);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_leave_multicast", ex);
        }
    }

    private static final class rdma_get_cm_event$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.rdmacm("rdma_get_cm_event"), DESC, CAPTURE);
    }

    /**
     * int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event): blocks in read(2) unless
     * the fd is non-blocking (then -1 + EAGAIN). 0, or -1 + errno. {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param channel the C argument {@code struct rdma_event_channel *channel}
     * @param event the C argument {@code struct rdma_cm_event **event}
     * @return 0 on success, or -1 with errno left in {@code callState}; see man rdma_get_cm_event(3)
     */
    public static int rdma_get_cm_event(final MemorySegment callState, final MemorySegment channel,
        final MemorySegment event)
    {
        try
        {
            return (int) rdma_get_cm_event$.HANDLE.invokeExact(callState, channel, event);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_get_cm_event", ex);
        }
    }

    private static final class rdma_ack_cm_event$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.rdmacm("rdma_ack_cm_event"), DESC, CAPTURE);
    }

    /**
     * int rdma_ack_cm_event(struct rdma_cm_event *event): frees the event and its private data. 0, or -1 + errno.
     * {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param event the C argument {@code struct rdma_cm_event *event}
     * @return 0 on success, or -1 with errno left in {@code callState}; see man rdma_ack_cm_event(3)
     */
    public static int rdma_ack_cm_event(final MemorySegment callState, final MemorySegment event)
    {
        try
        {
            return (int) rdma_ack_cm_event$.HANDLE.invokeExact(callState, event);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_ack_cm_event", ex);
        }
    }

    private static final class rdma_get_src_port$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(U16, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.rdmacm("rdma_get_src_port"), DESC, NONE);
    }

    /**
     * __be16 rdma_get_src_port(struct rdma_cm_id *id): the bound port in network order.
     *
     * @param id the C argument {@code struct rdma_cm_id *id}
     * @return what {@code rdma_get_src_port} returns ({@code __be16}); see man rdma_get_src_port(3)
     */
    public static short rdma_get_src_port(final MemorySegment id)
    {
        try
        {
            return (short) rdma_get_src_port$.HANDLE.invokeExact(id);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_get_src_port", ex);
        }
    }

    private static final class rdma_get_dst_port$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(U16, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.rdmacm("rdma_get_dst_port"), DESC, NONE);
    }

    /**
     * __be16 rdma_get_dst_port(struct rdma_cm_id *id): the peer's port in network order.
     *
     * @param id the C argument {@code struct rdma_cm_id *id}
     * @return what {@code rdma_get_dst_port} returns ({@code __be16}); see man rdma_get_dst_port(3)
     */
    public static short rdma_get_dst_port(final MemorySegment id)
    {
        try
        {
            return (short) rdma_get_dst_port$.HANDLE.invokeExact(id);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_get_dst_port", ex);
        }
    }

    private static final class rdma_event_str$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_INT);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.rdmacm("rdma_event_str"), DESC, NONE);
    }

    /**
     * const char *rdma_event_str(enum rdma_cm_event_type event): a static string such as "RDMA_CM_EVENT_REJECTED".
     *
     * @param event the C argument {@code enum rdma_cm_event_type event}
     * @return what {@code rdma_event_str} returns ({@code const char *}); see man rdma_event_str(3)
     */
    public static MemorySegment rdma_event_str(final int event)
    {
        try
        {
            return (MemorySegment) rdma_event_str$.HANDLE.invokeExact(event);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_event_str", ex);
        }
    }

    private static final class rdma_set_option$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_INT, C_POINTER, C_LONG);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.rdmacm("rdma_set_option"), DESC, CAPTURE);
    }

    /**
     * int rdma_set_option(struct rdma_cm_id *id, int level, int optname, void *optval, size_t optlen):
     * 0, or -1 + errno. {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param id the C argument {@code struct rdma_cm_id *id}
     * @param level the C argument {@code int level}
     * @param optname the C argument {@code int optname}
     * @param optval the C argument {@code void *optval}
     * @param optlen the C argument {@code size_t optlen}
     * @return 0 on success, or -1 with errno left in {@code callState}; see man rdma_set_option(3)
     */
    public static int rdma_set_option(final MemorySegment callState, final MemorySegment id, final int level,
        final int optname, final MemorySegment optval, final long optlen)
    {
        try
        {
            return (int) rdma_set_option$.HANDLE.invokeExact(callState, id, level, optname, optval, optlen);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_set_option", ex);
        }
    }

    private static final class rdma_migrate_id$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.rdmacm("rdma_migrate_id"), DESC, CAPTURE);
    }

    /**
     * int rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel): moves the id's future events to
     * another channel. 0, or -1 + errno. {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param id the C argument {@code struct rdma_cm_id *id}
     * @param channel the C argument {@code struct rdma_event_channel *channel}
     * @return 0 on success, or -1 with errno left in {@code callState}; see man rdma_migrate_id(3)
     */
    public static int rdma_migrate_id(final MemorySegment callState, final MemorySegment id,
        final MemorySegment channel)
    {
        try
        {
            return (int) rdma_migrate_id$.HANDLE.invokeExact(callState, id, channel);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_migrate_id", ex);
        }
    }

    private static final class rdma_init_qp_attr$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.rdmacm("rdma_init_qp_attr"), DESC, CAPTURE);
    }

    /**
     * int rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr, int *qp_attr_mask): the attributes for
     * the transition to qp_attr->qp_state (set by the caller). 0, or -1 + errno.
     * {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param id the C argument {@code struct rdma_cm_id *id}
     * @param qp_attr the C argument {@code struct ibv_qp_attr *qp_attr}
     * @param qp_attr_mask the C argument {@code int *qp_attr_mask}
     * @return 0 on success, or -1 with errno left in {@code callState}; see man rdma_init_qp_attr(3)
     */
    public static int rdma_init_qp_attr(final MemorySegment callState, final MemorySegment id,
        final MemorySegment qp_attr, final MemorySegment qp_attr_mask)
    {
        try
        {
            return (int) rdma_init_qp_attr$.HANDLE.invokeExact(callState, id, qp_attr, qp_attr_mask);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_init_qp_attr", ex);
        }
    }

    private static final class rdma_notify$
    {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_INT);
        static final MethodHandle HANDLE = NativeLibs.downcall(NativeLibs.rdmacm("rdma_notify"), DESC, CAPTURE);
    }

    /**
     * int rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event): 0, or -1 + errno.
     * {@code callState}: see {@link CallState}.
     *
     * @param callState where the call leaves errno ({@link CallState#allocate})
     * @param id the C argument {@code struct rdma_cm_id *id}
     * @param event the C argument {@code enum ibv_event_type event}
     * @return 0 on success, or -1 with errno left in {@code callState}; see man rdma_notify(3)
     */
    public static int rdma_notify(final MemorySegment callState, final MemorySegment id, final int event)
    {
        try
        {
            return (int) rdma_notify$.HANDLE.invokeExact(callState, id, event);
        }
        catch (final Error | RuntimeException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("unreachable: rdma_notify", ex);
        }
    }

}
