// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.testkit.EmulatedDevice;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Map;

import static io.mlx5j.bindings.IbvQpAttr.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the Java control path asked for, as the emulated kernel recorded it (mlx5emu_debug_*): the attributes of
 * every transition, the buffers and doorbell records libmlx5 registered (which must be the very memory
 * mlx5dv_init_obj handed to Java), MR bounds and access, and that closing really destroys every object.
 */
class KernelViewTest
{
    private Context context;
    private Arena memory;
    private long violationsBefore;

    @BeforeEach
    void open()
    {
        assertEquals(0L, EmulatedDevice.live().get("contexts"), "a previous test leaked a context");
        context = Context.open("mlx5_0");
        memory = Arena.ofShared();
        // the count is per process; only this test's own violations count here
        violationsBefore = EmulatedDevice.strictViolations();
    }

    @AfterEach
    void close()
    {
        context.close();
        memory.close();
        assertEquals(Map.of("contexts", 0L, "pds", 0L, "mrs", 0L, "cqs", 0L, "qps", 0L, "srqs", 0L, "ahs", 0L,
            "channels", 0L), EmulatedDevice.live(), "Context.close must destroy everything");
        assertEquals(violationsBefore, EmulatedDevice.strictViolations(), "emulator strict-mode violations");
    }

    @Test
    void rcTransitionsReachTheKernelWithTheirAttributes()
    {
        final ProtectionDomain pd = context.allocPd();
        final CompletionQueue cq = context.createCq(64);
        final QueuePair a = pd.createQp(QpConfig.builder(QpType.RC, cq).maxSendWr(32).maxRecvWr(16).build());
        final QueuePair b = pd.createQp(QpConfig.builder(QpType.RC, cq).build());
        final PortAttributes port = context.queryPort(1);
        final Gid gid = context.queryGid(1, 0);
        final AddressVector path = new AddressVector(1, port.lid(), 3, 0, 0, false, null, 0, 0, 0, 0);
        a.toInit(InitAttributes.connected(1, Access.REMOTE_WRITE | Access.LOCAL_WRITE));
        a.toRtr(new RtrAttributes(IBV_MTU_1024, b.qpn(), 0x123456, 4, 17, path));
        a.toRts(new RtsAttributes(0x654321, 18, 6, 5, 2));

        final Map<String, Long> k = EmulatedDevice.qp(a.qpn());
        assertNotNull(k);
        assertEquals(IBV_QPS_RTS, k.get("state"));
        assertEquals(2L, k.get("type"), "IBV_QPT_RC");
        assertEquals(b.qpn(), k.get("dest_qp_num"));
        assertEquals(0x123456L, k.get("rq_psn"));
        assertEquals(0x654321L, k.get("sq_psn"));
        assertEquals(IBV_MTU_1024, k.get("path_mtu"));
        assertEquals(4L, k.get("max_dest_rd_atomic"));
        assertEquals(17L, k.get("min_rnr_timer"));
        assertEquals(18L, k.get("timeout"));
        assertEquals(6L, k.get("retry_cnt"));
        assertEquals(5L, k.get("rnr_retry"));
        assertEquals(2L, k.get("max_rd_atomic"));
        assertEquals(port.lid(), k.get("dlid"));
        assertEquals(0L, k.get("is_global"));
        assertEquals((long) pd.pdn(), k.get("pdn"));
        final long rtsMasks = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS | IBV_QP_AV
            | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER
            | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
        assertEquals(rtsMasks, k.get("attr_mask_seen"),
            "attribute masks, hex " + Long.toHexString(k.get("attr_mask_seen")));
        assertEquals(IBV_QPS_RESET, EmulatedDevice.qp(b.qpn()).get("state"));
        assertTrue(gid.interfaceId() != 0);
    }

    @Test
    void ringsAreTheMemoryTheKernelRegistered()
    {
        final ProtectionDomain pd = context.allocPd();
        final CompletionChannel channel = context.createCompletionChannel();
        final CompletionQueue cq = context.createCq(100, 64, channel, 0);
        final CompletionQueue cq128 = context.createCq(10, 128, null, 0);
        final SharedReceiveQueue srq = pd.createSrq(30, 2);
        final QueuePair qp = pd.createQp(QpConfig.builder(QpType.RC, cq).recvCq(cq128).maxSendWr(50).maxRecvWr(20)
            .maxRecvSge(2).build());
        final QueuePair onSrq = pd.createQp(QpConfig.builder(QpType.UD, cq).srq(srq).build());

        final QpRing rings = qp.rings();
        final Map<String, Long> kqp = EmulatedDevice.qp(qp.qpn());
        assertEquals(rings.sq().address(), kqp.get("sq_buf"));
        assertEquals(rings.rq().address(), kqp.get("rq_buf"));
        assertEquals(rings.dbrec().address(), kqp.get("dbrec"));
        assertEquals(rings.sqWqeCnt(), kqp.get("sq_wqe_cnt"));
        assertEquals(rings.rqWqeCnt(), kqp.get("rq_wqe_cnt"));
        assertEquals(rings.rqStride(), 1L << kqp.get("rq_wqe_shift"));
        assertEquals(cq.ring().cqn(), kqp.get("send_cqn"));
        assertEquals(cq128.ring().cqn(), kqp.get("recv_cqn"));
        // the BlueFlame register libmlx5 reports is in the UAR page the kernel gave this QP, at its bf_offset
        assertEquals(kqp.get("uar_page_user_va") + kqp.get("bf_offset"), rings.bfReg().address());

        for (final CompletionQueue c : new CompletionQueue[] {cq, cq128})
        {
            final CqRing ring = c.ring();
            final Map<String, Long> kcq = EmulatedDevice.cq(ring.cqn());
            assertEquals(ring.buf().address(), kcq.get("buf"));
            assertEquals(ring.dbrec().address(), kcq.get("dbrec"));
            assertEquals(ring.cqeCnt(), kcq.get("cqe_cnt"));
            assertEquals(ring.cqeSize(), kcq.get("cqe_size"));
        }
        assertTrue((int) (long) EmulatedDevice.cq(cq.ring().cqn()).get("comp_fd") >= 0, "CQ with a channel");
        assertEquals(0xffffffffL, EmulatedDevice.cq(cq128.ring().cqn()).get("comp_fd"), "CQ without a channel: -1");

        final SrqRing srqRing = srq.ring();
        final Map<String, Long> ksrq = EmulatedDevice.srq(srqRing.srqn());
        assertEquals(srqRing.buf().address(), ksrq.get("buf"));
        assertEquals(srqRing.dbrec().address(), ksrq.get("dbrec"));
        // libmlx5 (v44 srq.c mlx5_alloc_srq_buf) allocates 2 * max_wr + 1 WQEs rounded up (64 for 30) and keeps the
        // WQEs after the free list 0..tail (tail = 32 - 1 for 30) as its wait queue; mlx5dv reports head/tail only
        assertEquals(31, srqRing.tail());
        assertEquals(64L, ksrq.get("wqe_cnt"));
        assertEquals(srqRing.stride(), 1L << ksrq.get("wqe_shift"));
        assertEquals(srqRing.srqn(), EmulatedDevice.qp(onSrq.qpn()).get("srqn"));
    }

    /** A 5 GiB registration (reserved, never touched: MAP_NORESERVE) keeps its 64-bit length end to end. */
    @Test
    void memoryRegionLengthIsSixtyFourBits() throws Throwable
    {
        final long length = 5L << 30;
        final Linker linker = Linker.nativeLinker();
        final MethodHandle mmap = linker.downcallHandle(linker.defaultLookup().find("mmap").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
        final MethodHandle munmap = linker.downcallHandle(linker.defaultLookup().find("munmap").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
        final int protReadWrite = 0x3;
        final int mapPrivateAnonymousNoreserve = 0x02 | 0x20 | 0x4000;
        final MemorySegment raw = (MemorySegment) mmap.invokeExact(MemorySegment.NULL, length, protReadWrite,
            mapPrivateAnonymousNoreserve, -1, 0L);
        assertTrue(raw.address() != -1L, "mmap of 5 GiB (no reserve) failed");
        try
        {
            final ProtectionDomain pd = context.allocPd();
            final MemoryRegion mr = pd.register(raw.reinterpret(length), Access.LOCAL_WRITE);
            assertEquals(length, mr.length());
            assertEquals(length, EmulatedDevice.mr(mr.lkey()).get("length"));
            mr.close();
        }
        finally
        {
            assertEquals(0, (int) munmap.invokeExact(raw, length));
        }
    }

    @Test
    void memoryRegionBoundsAndAccessAndDestroy()
    {
        final ProtectionDomain pd = context.allocPd();
        final MemorySegment buffer = memory.allocate(3 * 4096 + 100, 64).asSlice(64);
        final int access = Access.LOCAL_WRITE | Access.REMOTE_READ;
        final MemoryRegion mr = pd.register(buffer, access);
        final Map<String, Long> k = EmulatedDevice.mr(mr.lkey());
        assertEquals(buffer.address(), k.get("addr"));
        assertEquals(buffer.byteSize(), k.get("length"));
        assertEquals(access, k.get("access"));
        assertEquals(mr.rkey(), k.get("rkey"));
        assertEquals((long) pd.pdn(), k.get("pdn"));
        final int lkey = mr.lkey();
        mr.close();
        assertNull(EmulatedDevice.mr(lkey), "ibv_dereg_mr reached the kernel");
        assertEquals(1L, EmulatedDevice.live().get("pds"));
    }
}
