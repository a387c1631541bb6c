// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.C_LONG;
import static io.mlx5j.bindings.CTypes.C_POINTER;
import static io.mlx5j.bindings.CTypes.U64;
import static io.mlx5j.bindings.CTypes.U8;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The static-inline paths without a device: fake provider objects in native memory whose function pointers are
 * upcall stubs recording what they receive. Proves the pointer chase (qp->context->ops.post_send,
 * verbs_context.query_port at a negative offset from the context, ibv_qp_ex members) and the argument order.
 */
class InlineVerbsTest
{
    private static final List<String> CALLS = new ArrayList<>();

    private Arena arena;
    private MemorySegment vctx;
    private MemorySegment context;

    static int postSend(final MemorySegment qp, final MemorySegment wr, final MemorySegment bad)
    {
        CALLS.add("post_send " + qp.address() + " " + wr.address() + " " + bad.address());
        return 7;
    }

    static int postRecv(final MemorySegment qp, final MemorySegment wr, final MemorySegment bad)
    {
        CALLS.add("post_recv " + qp.address() + " " + wr.address() + " " + bad.address());
        return 8;
    }

    static int pollCq(final MemorySegment cq, final int n, final MemorySegment wc)
    {
        CALLS.add("poll_cq " + cq.address() + " " + n + " " + wc.address());
        return 3;
    }

    static int reqNotify(final MemorySegment cq, final int solicited)
    {
        CALLS.add("req_notify_cq " + cq.address() + " " + solicited);
        return 0;
    }

    static int queryPort(final MemorySegment ctx, final byte port, final MemorySegment attr, final long len)
    {
        CALLS.add("query_port " + ctx.address() + " " + port + " " + attr.address() + " " + len);
        return 0;
    }

    static void wrStart(final MemorySegment qpx)
    {
        CALLS.add("wr_start " + qpx.address());
    }

    static int wrComplete(final MemorySegment qpx)
    {
        CALLS.add("wr_complete " + qpx.address());
        return 5;
    }

    static void wrRdmaWrite(final MemorySegment qpx, final int rkey, final long raddr)
    {
        CALLS.add("wr_rdma_write " + qpx.address() + " " + Integer.toHexString(rkey) + " " + Long.toHexString(raddr));
    }

    static void wrSetSge(final MemorySegment qpx, final int lkey, final long addr, final int length)
    {
        CALLS.add("wr_set_sge " + qpx.address() + " " + Integer.toHexString(lkey) + " " + Long.toHexString(addr)
            + " " + length);
    }

    private MemorySegment stub(final String name, final FunctionDescriptor fd) throws ReflectiveOperationException
    {
        final MethodType type = fd.toMethodType();
        return Linker.nativeLinker().upcallStub(
            MethodHandles.lookup().findStatic(InlineVerbsTest.class, name, type), fd, arena);
    }

    @BeforeEach
    void fakeProvider() throws ReflectiveOperationException
    {
        CALLS.clear();
        arena = Arena.ofConfined();
        vctx = arena.allocate(VerbsContext.LAYOUT);
        context = vctx.asSlice(VerbsContext.CONTEXT_OFFSET, IbvContext.LAYOUT);
        vctx.set(C_LONG, VerbsContext.SZ_OFFSET, VerbsContext.LAYOUT.byteSize());
        context.set(C_POINTER, IbvContext.ABI_COMPAT_OFFSET,
            MemorySegment.ofAddress(InlineVerbs.VERBS_ABI_IS_EXTENDED));
        final FunctionDescriptor post = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_POINTER);
        final long ops = IbvContext.OPS_OFFSET;
        context.set(C_POINTER, ops + IbvContextOps.POST_SEND_OFFSET, stub("postSend", post));
        context.set(C_POINTER, ops + IbvContextOps.POST_RECV_OFFSET, stub("postRecv", post));
        context.set(C_POINTER, ops + IbvContextOps.POLL_CQ_OFFSET,
            stub("pollCq", FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_POINTER)));
        context.set(C_POINTER, ops + IbvContextOps.REQ_NOTIFY_CQ_OFFSET,
            stub("reqNotify", FunctionDescriptor.of(C_INT, C_POINTER, C_INT)));
        vctx.set(C_POINTER, VerbsContext.QUERY_PORT_OFFSET,
            stub("queryPort", FunctionDescriptor.of(C_INT, C_POINTER, U8, C_POINTER, C_LONG)));
    }

    @AfterEach
    void close()
    {
        arena.close();
    }

    @Test
    void opsTableCallsReachTheProviderPointersWithTheirArguments()
    {
        final MemorySegment qp = arena.allocate(IbvQp.LAYOUT);
        qp.set(C_POINTER, IbvQp.CONTEXT_OFFSET, context);
        final MemorySegment cq = arena.allocate(IbvCq.LAYOUT);
        cq.set(C_POINTER, IbvCq.CONTEXT_OFFSET, context);
        final MemorySegment wr = arena.allocate(IbvSendWr.LAYOUT);
        final MemorySegment bad = arena.allocate(C_POINTER);
        final MemorySegment wc = arena.allocate(IbvWc.LAYOUT, 4);

        assertEquals(7, InlineVerbs.ibv_post_send(qp, wr, bad));
        assertEquals(8, InlineVerbs.ibv_post_recv(qp, wr, bad));
        assertEquals(3, InlineVerbs.ibv_poll_cq(cq, 4, wc));
        assertEquals(0, InlineVerbs.ibv_req_notify_cq(cq, 1));
        assertEquals(7, InlineVerbs.callPost(InlineVerbs.postSendFn(qp), qp, wr, bad));
        assertEquals(List.of(
            "post_send " + qp.address() + " " + wr.address() + " " + bad.address(),
            "post_recv " + qp.address() + " " + wr.address() + " " + bad.address(),
            "poll_cq " + cq.address() + " 4 " + wc.address(),
            "req_notify_cq " + cq.address() + " 1",
            "post_send " + qp.address() + " " + wr.address() + " " + bad.address()), CALLS);
    }

    @Test
    void queryPortUsesTheExtendedContextWithTheFullStructSize()
    {
        final MemorySegment attr = arena.allocate(IbvPortAttr.LAYOUT);
        assertEquals(0, InlineVerbs.ibv_query_port(context, (byte)1, attr));
        assertEquals(List.of("query_port " + context.address() + " 1 " + attr.address() + " 52"), CALLS);
    }

    @Test
    void verbsContextOpFollowsVerbsGetCtxOp()
    {
        final long op = VerbsContext.QUERY_PORT_OFFSET;
        final MemorySegment fn = vctx.get(C_POINTER, op);
        assertEquals(fn.address(), InlineVerbs.verbsContextOp(context, op).address());
        // a provider built against an older verbs_context (smaller sz) does not have the first members
        vctx.set(C_LONG, VerbsContext.SZ_OFFSET, VerbsContext.LAYOUT.byteSize() - op - 1);
        assertEquals(0, InlineVerbs.verbsContextOp(context, op).address());
        vctx.set(C_LONG, VerbsContext.SZ_OFFSET, VerbsContext.LAYOUT.byteSize() - op);
        assertEquals(fn.address(), InlineVerbs.verbsContextOp(context, op).address());
        // a legacy (non-extended) context has no verbs_context around it at all
        context.set(C_POINTER, IbvContext.ABI_COMPAT_OFFSET, MemorySegment.NULL);
        assertEquals(0, InlineVerbs.verbsContextOp(context, op).address());
        // and create_cq_ex is NULL here: EOPNOTSUPP without a call
        context.set(C_POINTER, IbvContext.ABI_COMPAT_OFFSET,
            MemorySegment.ofAddress(InlineVerbs.VERBS_ABI_IS_EXTENDED));
        final MemorySegment state = CallState.allocate(arena);
        assertEquals(0, InlineVerbs.ibv_create_cq_ex(state, context, arena.allocate(IbvCqInitAttrEx.LAYOUT)).address());
        assertEquals(CallState.EOPNOTSUPP, CallState.errno(state));
    }

    @Test
    void wrBuildersCallTheQpExMembers() throws ReflectiveOperationException
    {
        final MemorySegment qpx = arena.allocate(IbvQpEx.LAYOUT);
        qpx.set(C_POINTER, IbvQpEx.WR_START_OFFSET, stub("wrStart", FunctionDescriptor.ofVoid(C_POINTER)));
        qpx.set(C_POINTER, IbvQpEx.WR_COMPLETE_OFFSET, stub("wrComplete", FunctionDescriptor.of(C_INT, C_POINTER)));
        qpx.set(C_POINTER, IbvQpEx.WR_RDMA_WRITE_OFFSET,
            stub("wrRdmaWrite", FunctionDescriptor.ofVoid(C_POINTER, C_INT, U64)));
        qpx.set(C_POINTER, IbvQpEx.WR_SET_SGE_OFFSET,
            stub("wrSetSge", FunctionDescriptor.ofVoid(C_POINTER, C_INT, U64, C_INT)));

        InlineVerbs.ibv_wr_start(qpx);
        InlineVerbs.wrId(qpx, 0x1122334455667788L);
        InlineVerbs.wrFlags(qpx, IbvSendWr.IBV_SEND_SIGNALED);
        InlineVerbs.ibv_wr_rdma_write(qpx, 0xabcdef01, 0x7f0000001000L);
        InlineVerbs.ibv_wr_set_sge(qpx, 0x1234, 0x7f0000002000L, 4096);
        assertEquals(5, InlineVerbs.ibv_wr_complete(qpx));

        assertEquals(0x1122334455667788L, qpx.get(U64, IbvQpEx.WR_ID_OFFSET));
        assertEquals(IbvSendWr.IBV_SEND_SIGNALED, qpx.get(C_INT, IbvQpEx.WR_FLAGS_OFFSET));
        final long a = qpx.address();
        assertEquals(List.of("wr_start " + a, "wr_rdma_write " + a + " abcdef01 7f0000001000",
            "wr_set_sge " + a + " 1234 7f0000002000 4096", "wr_complete " + a), CALLS);
    }
}
