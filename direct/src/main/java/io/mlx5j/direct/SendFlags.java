package io.mlx5j.direct;

/**
 * Flags of a direct send post (an {@code int} bit set, no objects per post). The first three become the ctrl
 * segment's fm_ce_se byte exactly as libmlx5 maps {@code IBV_SEND_*} (rdma-core v44 providers/mlx5/qp.c
 * _mlx5_post_send): SIGNALED to MLX5_WQE_CTRL_CQ_UPDATE, FENCE to MLX5_WQE_CTRL_FENCE, SOLICITED to
 * MLX5_WQE_CTRL_SOLICITED.
 */
public final class SendFlags
{
    /** Generate a CQE for this WQE (and so retire every earlier unsignaled one). */
    public static final int SIGNALED = 1;
    /** Wait until every earlier WQE of this send queue has completed (strong fence). */
    public static final int FENCE = 2;
    /** Ask for a solicited event at the responder. */
    public static final int SOLICITED = 4;
    /** Copy the payload into the WQE (up to the QP's max inline data); the lkey is then ignored. */
    public static final int INLINE = 8;
    /** Ring the doorbell right after this WQE (a post of one); without it, call {@link DirectSendQueue#ring()}. */
    public static final int RING = 16;

    static final int ALL = SIGNALED | FENCE | SOLICITED | INLINE | RING;

    private SendFlags()
    {
    }
}
