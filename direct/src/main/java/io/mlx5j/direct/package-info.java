// SPDX-License-Identifier: Apache-2.0
/**
 * The data path: posting and polling from Java over the rings the control path ({@code io.mlx5j.verbs}) reports,
 * with no libibverbs call per operation.
 * <pre>
 *   QueuePair --SendQueue.of--> SendQueue ----\
 *   QueuePair / WorkQueue --RecvQueue.of--> RecvQueue --attach--> CqPoller --poll--> Completion / Completions
 *   SharedReceiveQueue --SrqRecvQueue.of--> SrqRecvQueue --/          ^
 *   CompletionQueue --CqPoller.of------------------------------------'
 * </pre>
 * A {@link io.mlx5j.direct.SendQueue} writes WQEs into the send ring and rings the doorbell;
 * {@link io.mlx5j.direct.RecvQueue} and {@link io.mlx5j.direct.SrqRecvQueue} post receive WQEs;
 * {@link io.mlx5j.direct.CqPoller} decodes CQEs into reusable {@link io.mlx5j.direct.Completion} views, exactly as
 * libmlx5's {@code ibv_poll_cq} fills an {@code ibv_wc}, and retires the slots of the queues attached to it. Raw
 * Ethernet sends and striding receives are in {@code io.mlx5j.raw}; the machinery behind these classes is in
 * {@code io.mlx5j.direct.internal}.
 * <h2>Threads and lifetime</h2>
 * A poller and the queues attached to it are one group, used from one thread ({@code -Dmlx5j.debug=true} checks it;
 * {@code claim()} hands a group over). Posts and polls check once per call that their QP or CQ is open and then
 * access the ring unchecked, so a QP or CQ is closed from its group's thread, or after that thread has stopped (each
 * class's close rule). Posts and polls allocate nothing.
 */
package io.mlx5j.direct;
