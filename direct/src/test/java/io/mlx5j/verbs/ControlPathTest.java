// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.IbvQpInitAttrEx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The control path on the emulated ConnectX-5 (InfiniBand link, one device): runs in a JVM that surefire starts with
 * the emulator's LD_PRELOAD and SYSFS_PATH (this module's pom). Expected values are the ones emulator/mlx5emu writes
 * into the fake sysfs tree (PCI device 0x1017, LID 1, GID fe80::9803:9b03:004d:4500) and what the PRM
 * and libmlx5 fix (64-byte WQEBBs, power-of-two rings, 8-byte doorbell records).
 */
class ControlPathTest
{
    private Context context;
    private Arena memory;

    @BeforeEach
    void open()
    {
        context = Context.open("mlx5_0");
        memory = Arena.ofShared();
    }

    @AfterEach
    void close()
    {
        context.close();
        memory.close();
    }

    @Test
    void deviceListShowsTheEmulatedConnectX()
    {
        try (DeviceList list = DeviceList.open())
        {
            assertEquals(List.of("mlx5_0"), list.names());
            final Device device = list.get("mlx5_0");
            assertTrue(device.isMlx5(), "libmlx5 must drive the emulated device");
            assertEquals(0x98039b03004d4500L, device.guid());
            assertThrows(IllegalArgumentException.class, () -> list.get("mlx5_9"));
        }
    }

    @Test
    void queryDevicePortAndGid()
    {
        final DeviceAttributes attr = context.queryDevice();
        // like a real ConnectX: the IEEE OUI of Mellanox (0x02c9), not the PCI vendor id (0x15b3)
        assertEquals(0x02c9, attr.vendorId());
        assertEquals(0x1017, attr.vendorPartId());
        assertEquals(1, attr.physPortCnt());
        assertEquals(0x98039b03004d4500L, attr.nodeGuid());
        assertTrue(attr.maxQpWr() >= 64 && attr.maxCqe() >= 64, attr.toString());

        final PortAttributes port = context.queryPort(1);
        assertTrue(port.isActive(), port.toString());
        assertTrue(!port.isEthernet(), port.toString());
        assertEquals(1, port.lid());
        assertEquals(1, port.smLid());
        assertEquals(128, port.gidTblLen());

        assertEquals(Gid.parse("fe80:0000:0000:0000:9803:9b03:004d:4500"), context.queryGid(1, 0));
        assertThrows(IllegalArgumentException.class, () -> context.queryPort(0));
    }

    @Test
    void memoryRegionCoversTheSegmentWithKeys()
    {
        try (ProtectionDomain pd = context.allocPd())
        {
            final MemorySegment buffer = memory.allocate(1 << 20, 4096);
            final MemoryRegion mr = pd.register(buffer, Access.ALL_REMOTE);
            assertEquals(buffer.address(), mr.address());
            assertEquals(1L << 20, mr.length());
            assertNotEquals(0, mr.lkey());
            assertNotEquals(0, mr.rkey());
            assertThrows(IllegalArgumentException.class, () -> pd.register(MemorySegment.ofArray(new byte[64]), 0));
            assertThrows(IllegalArgumentException.class, () -> pd.register(buffer, Access.REMOTE_WRITE));
            mr.close();
        }
    }

    @Test
    void completionQueueRingMatchesWhatWasAskedFor()
    {
        final CompletionQueue cq = context.createCq(100);
        assertTrue(cq.depth() >= 100, "depth " + cq.depth());
        final CqRing ring = cq.ring();
        assertEquals(64, ring.cqeSize());
        assertTrue(ring.cqeCnt() >= 100 && Integer.bitCount(ring.cqeCnt()) == 1, "cqe_cnt " + ring.cqeCnt());
        assertEquals((long) ring.cqeCnt() * 64, ring.buf().byteSize());
        assertEquals(8, ring.dbrec().byteSize());
        assertEquals(0x28, ring.cqUar().byteSize());
        // libmlx5 hands CQEs to the device with opcode MLX5_CQE_INVALID (0xf) in op_own (cq.c)
        assertEquals(0xf0, ring.buf().get(ValueLayout.JAVA_BYTE, 63) & 0xf0);
        assertEquals(ring, cq.ring());
    }

    @Test
    void completionQueueWith128ByteCqesAndAChannel()
    {
        final CompletionChannel channel = context.createCompletionChannel();
        assertTrue(channel.fd() >= 0);
        final CompletionQueue cq = context.createCq(64, 128, channel, 0);
        assertEquals(128, cq.ring().cqeSize());
        assertEquals((long) cq.ring().cqeCnt() * 128, cq.ring().buf().byteSize());
        cq.requestNotify(false);
        // armed but nothing completes: the wait must time out, not hang
        assertEquals(null, channel.awaitEvent(50_000_000L));
    }

    @Test
    void rcLoopbackPairGoesResetInitRtrRts()
    {
        final ProtectionDomain pd = context.allocPd();
        final CompletionQueue cq = context.createCq(256);
        final QueuePair a = pd.createQp(QpConfig.builder(QpType.RC, cq).maxSendWr(100).maxRecvWr(50).maxSendSge(2)
            .maxRecvSge(3).build());
        final QueuePair b = pd.createQp(QpConfig.builder(QpType.RC, cq).build());
        assertNotEquals(a.qpn(), b.qpn());
        assertTrue(a.capabilities().maxSendWr() >= 100 && a.capabilities().maxRecvSge() >= 3,
            a.capabilities().toString());
        assertEquals(QpState.RESET, a.state());

        final PortAttributes port = context.queryPort(1);
        final Gid gid = context.queryGid(1, 0);
        final PeerInfo infoA = PeerInfo.of(port.lid(), a.qpn(), 0x1111, gid);
        final PeerInfo infoB = PeerInfo.of(port.lid(), b.qpn(), 0x2222, gid);
        final AddressVector path = AddressVector.ib(1, port.lid(), 0);

        a.toInit(InitAttributes.connected(1, Access.ALL_REMOTE));
        assertEquals(QpState.INIT, a.state());
        a.toRtr(RtrAttributes.of(port.activeMtu(), infoB, path));
        assertEquals(QpState.RTR, a.state());
        a.toRts(RtsAttributes.of(infoA.psn()));
        assertEquals(QpState.RTS, a.state());

        b.connect(1, Access.ALL_REMOTE, 0, port.activeMtu(), infoA, path, infoB.psn());
        assertEquals(QpState.RTS, b.state());

        // skipping states is the library's (kernel's) to refuse, with its errno
        final QueuePair c = pd.createQp(QpConfig.builder(QpType.RC, cq).build());
        final VerbsException bad = assertThrows(VerbsException.class, () -> c.toRts(RtsAttributes.of(0)));
        assertEquals("ibv_modify_qp", bad.call());
        assertNotEquals(0, bad.errno());

        a.toError();
        assertEquals(QpState.ERR, a.state());
        a.toReset();
        assertEquals(QpState.RESET, a.state());
    }

    @Test
    void qpRingsHaveTheSizesMlx5dvReports()
    {
        final ProtectionDomain pd = context.allocPd();
        final CompletionQueue cq = context.createCq(256);
        final QueuePair qp = pd.createQp(QpConfig.builder(QpType.RC, cq).maxSendWr(100).maxRecvWr(50)
            .maxRecvSge(3).build());
        final QpRing rings = qp.rings();
        assertEquals(qp.qpn(), rings.qpn());
        assertEquals(64, rings.sqStride());
        assertTrue(Integer.bitCount(rings.sqWqeCnt()) == 1 && rings.sqWqeCnt() >= 100,
            "sq wqe_cnt " + rings.sqWqeCnt());
        assertEquals((long) rings.sqWqeCnt() * 64, rings.sq().byteSize());
        assertTrue(Integer.bitCount(rings.rqWqeCnt()) == 1 && rings.rqWqeCnt() >= 50,
            "rq wqe_cnt " + rings.rqWqeCnt());
        // 3 SGEs of 16 bytes round up to a 64-byte receive stride (libmlx5 rounds to a power of two)
        assertEquals(64, rings.rqStride());
        assertEquals((long) rings.rqWqeCnt() * rings.rqStride(), rings.rq().byteSize());
        assertEquals(8, rings.dbrec().byteSize());
        assertTrue(rings.bfSize() % 64 == 0, "bf.size " + rings.bfSize());
        assertEquals(Math.max(8, 2L * rings.bfSize()), rings.bfReg().byteSize());
        assertNotEquals(0, rings.sq().address());
        // a fresh QP's doorbell counters are zero
        assertEquals(0L, rings.dbrec().get(ValueLayout.JAVA_LONG, 0));
    }

    @Test
    void srqAndItsRing()
    {
        final ProtectionDomain pd = context.allocPd();
        final CompletionQueue cq = context.createCq(64);
        final SharedReceiveQueue srq = pd.createSrq(100, 2);
        assertTrue(srq.maxWr() >= 100 && srq.maxSge() >= 2, srq.toString());
        final SrqRing ring = srq.ring();
        assertTrue(ring.stride() >= 16 * 3 && Integer.bitCount(ring.stride()) == 1, "stride " + ring.stride());
        assertTrue(ring.tail() + 1 >= 100, "tail " + ring.tail());
        assertEquals((ring.tail() + 1L) * ring.stride(), ring.buf().byteSize());
        final QueuePair qp = pd.createQp(QpConfig.builder(QpType.RC, cq).srq(srq).build());
        assertEquals(0, qp.rings().rqWqeCnt());
        srq.close();    // closes the QP that receives from it first (NativeResource: dependents first)
        assertTrue(qp.isClosed() && srq.isClosed() && !cq.isClosed());
    }

    @Test
    void udQpWithAddressHandle()
    {
        final ProtectionDomain pd = context.allocPd();
        final CompletionQueue cq = context.createCq(64);
        final QueuePair ud = pd.createQp(QpConfig.builder(QpType.UD, cq).build());
        ud.connect(1, 0, 0x11111111, 0, null, null, 0);
        assertEquals(QpState.RTS, ud.state());
        final PortAttributes port = context.queryPort(1);
        final AddressHandle ah = pd.createAh(AddressVector.ib(1, port.lid(), 0));
        final MemorySegment av = ah.av();
        assertEquals(48, av.byteSize());
        // mlx5_wqe_av.rlid (offset 14) is the destination LID, big-endian (providers/mlx5/verbs.c mlx5_create_ah)
        assertEquals(port.lid(), Short.toUnsignedInt(av.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(
            java.nio.ByteOrder.BIG_ENDIAN), 14)));
    }

    /** Failures carry the C call and the errno captured right after it, and leave no half-made object behind. */
    @Test
    void failedCreatesReportCallAndErrno()
    {
        final ProtectionDomain pd = context.allocPd();
        final CompletionQueue cq = context.createCq(16);
        final VerbsException qp = assertThrows(VerbsException.class,
            () -> pd.createQp(QpConfig.builder(QpType.RC, cq).maxSendWr(1 << 30).build()));
        assertEquals("ibv_create_qp", qp.call());
        assertNotEquals(0, qp.errno(), qp.getMessage());
        final VerbsException bigCq = assertThrows(VerbsException.class, () -> context.createCq(1 << 30));
        assertEquals("ibv_create_cq", bigCq.call());
        assertNotEquals(0, bigCq.errno(), bigCq.getMessage());
        // the PD and CQ are still usable and nothing else was registered
        assertTrue(pd.createQp(QpConfig.builder(QpType.RC, cq).build()).qpn() > 0);
    }

    @Test
    void qpExForLibmlx5WrApi()
    {
        final ProtectionDomain pd = context.allocPd();
        final CompletionQueue cq = context.createCq(64);
        final QueuePair qp = pd.createQp(QpConfig.builder(QpType.RC, cq)
            .sendOpsFlags(IbvQpInitAttrEx.IBV_QP_EX_WITH_RDMA_WRITE | IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND).build());
        assertNotEquals(0, qp.qpEx().address());
        final QueuePair plain = pd.createQp(QpConfig.builder(QpType.RC, cq).build());
        assertThrows(IllegalStateException.class, plain::qpEx);
    }
}
