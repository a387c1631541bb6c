// SPDX-License-Identifier: Apache-2.0
/**
 * Raw Ethernet over RAW_PACKET QPs and WQs: frames sent with an inline header template or gathered
 * ({@link io.mlx5j.raw.RawSendQueue}), multi-packet receives into strided buffers
 * ({@link io.mlx5j.raw.StridingRecvQueue}), steering rules that deliver frames to a QP
 * ({@link io.mlx5j.raw.FlowRule}), and the NIC's clock for completion timestamps ({@link io.mlx5j.raw.NicClock}).
 * Sends complete and striding receives are decoded on an {@link io.mlx5j.direct.CqPoller}, as every queue of the
 * data path; the threads and close rules of {@code io.mlx5j.direct} apply.
 */
package io.mlx5j.raw;
