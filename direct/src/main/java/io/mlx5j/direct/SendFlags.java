// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.bindings.IbvSendWr;

/**
 * Flags of a direct send post (an {@code int} bit set, no objects per post).
 * <p>
 * Every flag with a verbs name has the value of {@code enum ibv_send_flags} (verbs.h), so verbs code ported to
 * mlx5j keeps its meaning bit for bit: FENCE = IBV_SEND_FENCE = 1, SIGNALED = IBV_SEND_SIGNALED = 2, SOLICITED = 4,
 * INLINE = 8, IP_CSUM = 16 (checked against the installed header by tests/HeaderConstantsTest). FENCE, SIGNALED and
 * SOLICITED become the ctrl segment's fm_ce_se byte exactly as libmlx5 maps them (rdma-core v44 providers/mlx5/qp.c
 * _mlx5_post_send): SIGNALED to MLX5_WQE_CTRL_CQ_UPDATE, FENCE to MLX5_WQE_CTRL_FENCE, SOLICITED to
 * MLX5_WQE_CTRL_SOLICITED.
 * <p>
 * mlx5j's own flags ({@link #RING}) live in the top bits, which verbs assigns last (it grows its flags upward from
 * bit 0 and has used 0..4 since rdma-core v1), so a verbs value passed by mistake is never taken for one of them.
 *
 * <p>Thread model: constants only; any thread.
 */
public final class SendFlags
{
    /** Wait until every earlier WQE of this send queue has completed (strong fence); IBV_SEND_FENCE. */
    public static final int FENCE = IbvSendWr.IBV_SEND_FENCE;
    /** Generate a CQE for this WQE (and so retire every earlier unsignaled one); IBV_SEND_SIGNALED. */
    public static final int SIGNALED = IbvSendWr.IBV_SEND_SIGNALED;
    /** Ask for a solicited event at the responder; IBV_SEND_SOLICITED. */
    public static final int SOLICITED = IbvSendWr.IBV_SEND_SOLICITED;
    /** Copy the payload into the WQE (up to the QP's max inline data); the lkey is then ignored; IBV_SEND_INLINE. */
    public static final int INLINE = IbvSendWr.IBV_SEND_INLINE;
    /**
     * Checksum offload, IBV_SEND_IP_CSUM: meaningful only on raw packet QPs, where libmlx5 sets the eth segment's
     * cs_flags. {@link SendQueue} (RC, UC, UD) refuses it with {@link IllegalArgumentException} rather than
     * ignoring it silently.
     */
    public static final int IP_CSUM = IbvSendWr.IBV_SEND_IP_CSUM;
    /**
     * mlx5j only, no verbs counterpart: ring the doorbell right after this WQE (a post of one); without it, call
     * {@link SendQueue#ring()}. Bit 30, far above every IBV_SEND_* bit.
     */
    public static final int RING = 1 << 30;

    private SendFlags()
    {
    }
}
