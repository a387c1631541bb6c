// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.bindings.RdmaCmEvent;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Device-free parts of io.mlx5j.cm: option checks, the socket address encoding, event names. */
class ConnectOptionsTest
{
    @Test
    void defaultsAreRpingsParameters()
    {
        final ConnectOptions d = ConnectOptions.DEFAULTS;
        assertEquals(1, d.responderResources());
        assertEquals(1, d.initiatorDepth());
        assertEquals(7, d.retryCount());
        assertEquals(7, d.rnrRetryCount());
        assertEquals(0, d.privateData().length);
        assertEquals(-1, d.typeOfService());
    }

    @Test
    void outOfRangeValuesAreRefusedByName()
    {
        assertEquals("retryCount must be in 0..7, got 8", assertThrows(IllegalArgumentException.class,
            () -> ConnectOptions.builder().retryCount(8).build()).getMessage());
        assertEquals("private data is at most 255 bytes (uint8_t length), got 256", assertThrows(
            IllegalArgumentException.class, () -> ConnectOptions.builder().privateData(new byte[256]).build())
            .getMessage());
        assertThrows(IllegalArgumentException.class, () -> ConnectOptions.builder().connectTimeout(Duration.ZERO)
            .build());
    }

    @Test
    void privateDataIsCopiedInAndOut()
    {
        final byte[] data = {1, 2, 3};
        final ConnectOptions o = ConnectOptions.builder().privateData(data).build();
        data[0] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, o.privateData());
        o.privateData()[1] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, o.privateData());
    }

    /** sockaddr_in / sockaddr_in6 bytes as the C structs hold them: family native, port and address big-endian. */
    @Test
    void socketAddressesHaveTheCByteLayout() throws Exception
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment v4 = SocketAddresses.write(arena, new InetSocketAddress("10.1.2.3", 0x1234));
            assertArrayEquals(new byte[] {2, 0, 0x12, 0x34, 10, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0},
                v4.asSlice(0, 16).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            assertEquals(new InetSocketAddress("10.1.2.3", 0x1234), SocketAddresses.read(v4, 0));
            final MemorySegment v6 = SocketAddresses.write(arena, new InetSocketAddress("fe80::1", 7471));
            final byte[] b = v6.asSlice(0, 28).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            assertEquals(10, b[0]);
            assertEquals(0x1d, b[2]);
            assertEquals(0x2f, b[3] & 0xff);
            assertEquals((byte) 0xfe, b[8]);
            assertEquals((byte) 0x80, b[9]);
            assertEquals(1, b[23]);
            assertEquals(new InetSocketAddress(InetAddress.getByName("fe80::1"), 7471), SocketAddresses.read(v6, 0));
            assertEquals(null, SocketAddresses.read(arena.allocate(128), 0));
        }
        assertThrows(IllegalArgumentException.class, () -> SocketAddresses.write(Arena.global(),
            InetSocketAddress.createUnresolved("example.org", 1)));
    }

    /** librdmacm's own rdma_event_str names every CmEventType by its C value: the enum order is the C one. */
    @Test
    void eventNamesAreLibrdmacmsNames()
    {
        for (final CmEventType t : CmEventType.values())
        {
            assertEquals(t.cName(), io.mlx5j.bindings.Rdmacm.rdma_event_str(t.value()).reinterpret(64).getString(0));
        }
    }

    @Test
    void eventNamesAreTheCNames()
    {
        assertEquals("RDMA_CM_EVENT_TIMEWAIT_EXIT", CmEventType.TIMEWAIT_EXIT.cName());
        assertEquals(RdmaCmEvent.RDMA_CM_EVENT_MULTICAST_JOIN, CmEventType.MULTICAST_JOIN.value());
        assertEquals("status -110 (-ETIMEDOUT)", CmStatus.describe(CmEventType.UNREACHABLE, -110));
        assertEquals("status 8 (INVALID_SERVICE_ID (no listener))", CmStatus.describe(CmEventType.REJECTED, 8));
    }
}
