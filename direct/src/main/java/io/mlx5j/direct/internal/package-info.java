// SPDX-License-Identifier: Apache-2.0
/**
 * The machinery behind the data-path classes of {@code io.mlx5j.direct} and {@code io.mlx5j.raw}, public only so
 * that both packages can use it; not for applications, and not exported by the module descriptor. One concept per
 * class: the send work request being staged ({@link io.mlx5j.direct.internal.SendStaging}) and its opcode rules
 * ({@link io.mlx5j.direct.internal.SendOpcodeRules}), the one-call encoders ({@link
 * io.mlx5j.direct.internal.FastSendEncoder}, {@link io.mlx5j.direct.internal.EthFrameEncoder}), scatter lists and
 * scatter-to-CQE copies ({@link io.mlx5j.direct.internal.ScatterList}, {@link io.mlx5j.direct.internal.Scatter},
 * {@link io.mlx5j.direct.internal.SendScatter}), thread groups and the debug switch
 * ({@link io.mlx5j.direct.internal.Ownership}), the BlueFlame register registry ({@link
 * io.mlx5j.direct.internal.BlueFlameRegisters}), the send ring both send queues compose ({@link
 * io.mlx5j.direct.internal.SendRingCore}), cycles lent to the emulator ({@link
 * io.mlx5j.direct.internal.EmulatorLend}), the receive-queue contracts the poller holds attached
 * receive queues by ({@link io.mlx5j.direct.internal.AttachedReceive} and its three kinds), and the poller's queue
 * table ({@link io.mlx5j.direct.internal.QpnTable}).
 */
package io.mlx5j.direct.internal;
