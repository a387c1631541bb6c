// SPDX-License-Identifier: Apache-2.0
/**
 * Handing work to the NIC and asking it for events: doorbell records, the 8-byte doorbell and BlueFlame, the CQ
 * consumer index and arm doorbell, and the fences between them, laid out as rdma-core v44 libmlx5 lays them out.
 *
 * <p>A send post, after the WQE bytes are written ({@code io.mlx5j.wqe.WqeWriter}):
 * <pre>
 *   Dma.toDevice()                         WQE bytes before the counter that covers them
 *   dbrec[MLX5_SND_DBR] = be32(cur_post &amp; 0xffff)                   DoorbellRecord.sendCounter
 *   Dma.wcStart()                          counter before the MMIO stores
 *   BlueFlame copy of the WQE, or the 8-byte doorbell               BlueFlameRegister (via SendDoorbell)
 *   Dma.wcFlush()                          push the WC buffer out, before the half toggle (8-byte doorbell, or
 *                                          a shared register; a dedicated register's BlueFlame copy fills whole
 *                                          WC lines and skips it, as UCX's BF_POST mode does on x86-64)
 *   bf.offset ^= bf.size
 * </pre>
 * {@link io.mlx5j.doorbell.SendDoorbell#ring} does all of it; {@link io.mlx5j.doorbell.DoorbellMode} says which
 * store it uses. Receive queues and SRQs only publish {@link io.mlx5j.doorbell.DoorbellRecord#recvCounter}. CQs
 * publish {@link io.mlx5j.doorbell.CqDoorbell#consumerIndex} per poll batch and {@link
 * io.mlx5j.doorbell.CqDoorbell#arm} for events.
 *
 * <p>Everything is allocation-free and works over any {@code MemorySegment}, so tests use {@code long[]}-backed
 * heap segments for the doorbell record and the UAR page.
 */
package io.mlx5j.doorbell;
