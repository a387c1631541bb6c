// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.blocks;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * What the server tells each client in the private data of its rdma_cm accept (REP, at most 196 bytes), big-endian:
 * <pre>
 *   0  magic "MLXB" (4)   1 version (1)   5 flags (1): bit 0 the region was zeroed   6 reserved (2)
 *   8  address (8)   16 rkey (4)   20 reserved (4)   24 size in bytes (8)
 * </pre>
 *
 * @param address the region's virtual address, the RDMA target
 * @param rkey    its remote key
 * @param size    its length in bytes
 * @param zeroed  every byte was 0 when the server started: a block never written reads as zeros
 */
record RegionInfo(long address, int rkey, long size, boolean zeroed)
{
    static final int LENGTH = 32;
    private static final int MAGIC = 0x4D4C5842;   // "MLXB"
    private static final int VERSION = 1;

    byte[] encode()
    {
        final ByteBuffer b = ByteBuffer.allocate(LENGTH).order(ByteOrder.BIG_ENDIAN);
        b.putInt(MAGIC).put((byte) VERSION).put((byte) (zeroed ? 1 : 0)).putShort((short) 0);
        b.putLong(address).putInt(rkey).putInt(0).putLong(size);
        return b.array();
    }

    /** Decodes the accept's private data; rdma_cm pads it, so longer data is fine. */
    static RegionInfo decode(final byte[] data)
    {
        if (data == null || data.length < LENGTH)
        {
            throw new IllegalStateException("the server sent " + (data == null ? "no" : data.length + " bytes of")
                + " private data, not a block region (is it mlx5j blocks serve?)");
        }
        final ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.BIG_ENDIAN);
        if (b.getInt() != MAGIC)
        {
            throw new IllegalStateException("the server's private data is not a block region (no MLXB magic): is it "
                + "mlx5j blocks serve?");
        }
        final int version = b.get();
        if (version != VERSION)
        {
            throw new IllegalStateException("block region version " + version + ", this bench speaks " + VERSION);
        }
        final boolean zeroed = (b.get() & 1) != 0;
        b.getShort();
        final long address = b.getLong();
        final int rkey = b.getInt();
        b.getInt();
        return new RegionInfo(address, rkey, b.getLong(), zeroed);
    }
}
