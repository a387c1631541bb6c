// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import io.mlx5j.direct.internal.OrderedReceive;
import io.mlx5j.direct.internal.Ownership;
import io.mlx5j.direct.internal.QpnTable;
import io.mlx5j.direct.internal.SharedReceive;
import io.mlx5j.direct.internal.StridingReceive;
import io.mlx5j.verbs.QueuePair;

import java.util.Arrays;

/**
 * The queues attached to one {@link CqPoller}, found by the number a CQE carries: the low 24 bits of sop_drop_qpn.
 * <ul>
 * <li>Send queues, receive queues (a QP's own) and SRQ bindings (the QP a CQE names, bound to the SRQ whose WQE it
 *     completes) each in a {@link QpnTable}: constant time whatever the number of QPs. In front of the send and
 *     receive tables sits the queue found last, so that a CQ that completes one QP's WQEs, or runs of them, costs a
 *     compare and no probe: a probe inlined into the single poll made its compiled code larger than C2's
 *     InlineSmallCode (2,500 bytes; 2,408 became 2,912), so the poll was no longer inlined into the caller and
 *     Mlx5jPollBench.poll1 went from 19 ns to 27-31 ns; with the one-entry cache in front it measured 19.7 ns. The
 *     table probe is in methods of its own, off that path.</li>
 * <li>XRC SRQs in a {@link QpnTable} of their own, by what their CQEs carry in srqn_uidx (the user index libmlx5
 *     gave the SRQ, or its number under CQE version 1's absence): a TGT QP's CQE names the TGT QP, which may
 *     deliver into any XRC SRQ of its domain, so the SRQ is found by that field, in constant time, as libmlx5's
 *     mlx5_parse_cqe finds it. Only a receive CQE that no QP's own queue or SRQ binding takes looks there.</li>
 * <li>A flow-tagged receive queue (a RAW_PACKET QP's, or a WQ's) and a striding receive queue are each the only
 *     receive queue of their CQ: their CQEs carry a flow tag where others carry the QP number.</li>
 * <li>Queues that were attached and are not any more (detached, or their QP, WQ or SRQ destroyed) leave a retired
 *     mark under their number, so that their late CQEs (the flushes of a QP torn down with WQEs outstanding) are told
 *     apart from CQEs nothing ever claimed: the poller consumes the first kind as orphans. The marks of the last
 *     {@value #RETIRED_LIMIT} retirements are kept (a QP number is reused by a later QP, whose attach replaces the
 *     mark); an older one's CQE counts as unexpected, which is consumed too.</li>
 * </ul>
 * Attach, detach and the pruning of destroyed queues allocate; the look-ups do not.
 */
final class CqQueues
{
    static final int RETIRED_LIMIT = 1024;

    /** A number whose queue was attached here and is not any more. */
    private static final class Retired
    {
        final long seq;
        /** The SRQ a destroyed QP was bound to, whose WQEs its late CQEs give back; null otherwise. */
        final SharedReceive srq;

        Retired(final long seq, final SharedReceive srq)
        {
            this.seq = seq;
            this.srq = srq;
        }
    }

    /** A QP whose receives complete WQEs of an SRQ ({@link CqPoller#attach(SrqRecvQueue, QueuePair)}). */
    private static final class SrqBinding
    {
        final SharedReceive srq;
        final QueuePair qp;

        SrqBinding(final SharedReceive srq, final QueuePair qp)
        {
            this.srq = srq;
            this.qp = qp;
        }
    }

    private final QpnTable sends = new QpnTable();
    private final QpnTable recvs = new QpnTable();
    private final QpnTable srqBindings = new QpnTable();
    /** Attached XRC SRQs by their CQE index ({@link SrqRecvQueue#xrcCqeIndex()}), retired marks after detach. */
    private final QpnTable xrcSrqs = new QpnTable();
    private SharedReceive[] srqs = new SharedReceive[0];
    /** The flow-tagged receive queue, if one is attached; then no other receive queue is. */
    OrderedReceive raw;
    /** libmlx5's MLX5_RX_CSUM_VALID for {@link #raw}, read once on attach. */
    boolean rawCsumValid;
    /** The striding receive queue, if one is attached; then no other receive queue is. */
    StridingReceive striding;
    /** WQEs that filler CQEs released since the last reported striding completion. */
    int stridingFillers;
    /** A flow-tagged or striding receive queue was attached and is not any more: its CQEs are orphans. */
    private boolean taggedRetired;

    /** The send queue found last and its number (-1: none; no QP number is negative). */
    private int lastSendQpn = -1;
    private SendQueue lastSend;
    private int lastRecvQpn = -1;
    private OrderedReceive lastRecv;

    private long retirements;
    private int[] retiredKey;
    private long[] retiredSeq;
    private QpnTable[] retiredIn;

    // ------------------------------------------------------------------------------------------------ look-ups

    /** The live send queue of {@code qpn}, or null: a destroyed QP's queue never matches (its number may be reused). */
    SendQueue send(final int qpn)
    {
        final SendQueue s = lastSend;
        if (qpn == lastSendQpn && !s.dead())
        {
            return s;
        }
        return sendProbe(qpn);
    }

    private SendQueue sendProbe(final int qpn)
    {
        if (sends.get(qpn) instanceof SendQueue s && !s.dead())
        {
            lastSendQpn = qpn;
            lastSend = s;
            return s;
        }
        return null;
    }

    /** The live receive queue of {@code qpn} (or the flow-tagged one, whatever the number), or null. */
    OrderedReceive recv(final int qpn)
    {
        final OrderedReceive tagged = raw;
        if (tagged != null)
        {
            return tagged.dead() ? null : tagged;
        }
        final OrderedReceive r = lastRecv;
        if (qpn == lastRecvQpn && !r.dead())
        {
            return r;
        }
        return recvProbe(qpn);
    }

    private OrderedReceive recvProbe(final int qpn)
    {
        if (recvs.get(qpn) instanceof OrderedReceive r && !r.dead())
        {
            lastRecvQpn = qpn;
            lastRecv = r;
            return r;
        }
        return null;
    }

    /**
     * The SRQ whose WQEs the receives of {@code qpn} complete, or null: the one {@code qpn} is bound to, else the XRC
     * SRQ the CQE's {@code srqnUidx} names, else the only SRQ attached if it is a plain one.
     */
    SharedReceive srq(final int qpn, final int srqnUidx)
    {
        if (srqBindings.get(qpn) instanceof SrqBinding b)
        {
            return b.qp.isClosed() || b.srq.dead() ? null : b.srq;
        }
        if (xrcSrqs.size() != 0)
        {
            final Object x = xrcSrqs.get(srqnUidx & 0xffffff);
            if (x instanceof SharedReceive s)
            {
                return s.dead() ? null : s;
            }
            if (x != null)
            {
                return null;    // a retired XRC SRQ's late CQE
            }
        }
        final SharedReceive[] all = srqs;
        return all.length == 1 && !all[0].dead() && !isXrc(all[0]) ? all[0] : null;
    }

    /** Whether {@code q} is an attached XRC SRQ (a probe by its index; attach-time and fallback use only). */
    private boolean isXrc(final SharedReceive q)
    {
        final int index = ((SrqRecvQueue) q.queue()).xrcCqeIndex();
        return index >= 0;
    }

    /** Whether the CQE index {@code srqnUidx} was an XRC SRQ's that was attached here and is not any more. */
    boolean xrcRetired(final int srqnUidx)
    {
        final Object x = xrcSrqs.size() == 0 ? null : xrcSrqs.get(srqnUidx & 0xffffff);
        return x instanceof Retired || x instanceof SharedReceive s && s.dead();
    }

    /** Whether a send queue of {@code qpn} was attached here and is not any more (or its QP is destroyed). */
    boolean sendRetired(final int qpn)
    {
        final Object v = sends.get(qpn);
        return v instanceof Retired || v instanceof SendQueue s && s.dead();
    }

    /**
     * Whether a receive queue, an SRQ binding, or the flow-tagged or striding queue that {@code qpn}'s receives went
     * to was attached here and is not any more. A retired binding's CQE gives its SRQ WQE {@code wqeCounter} back to
     * the SRQ if that is still attached (a destroyed QP's; not a detached one's, whose queues the caller keeps).
     */
    boolean recvRetired(final int qpn, final int wqeCounter)
    {
        if (taggedRetired || raw != null && raw.dead() || striding != null && striding.dead())
        {
            return true;
        }
        final Object r = recvs.get(qpn);
        if (r instanceof Retired || r instanceof OrderedReceive q && q.dead())
        {
            return true;
        }
        final Object b = srqBindings.get(qpn);
        final SharedReceive srq = b instanceof SrqBinding binding && (binding.qp.isClosed() || binding.srq.dead())
            ? binding.srq : b instanceof Retired retired ? retired.srq : null;
        if (srq != null && attached(srq))
        {
            srq.reclaim(wqeCounter);
        }
        return b != null;
    }

    /** Whether {@code srq} is attached (a loop, not Arrays.asList: this runs on a poll and allocates nothing). */
    private boolean attached(final SharedReceive srq)
    {
        for (final SharedReceive s : srqs)
        {
            if (s == srq)
            {
                return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------------------------------------ attach, detach

    void attach(final SendQueue sq, final CqPoller poller, final Ownership ownership)
    {
        pruneDead();
        if (sends.get(sq.qpn()) instanceof SendQueue)
        {
            throw new IllegalArgumentException("a SendQueue for QP 0x" + Integer.toHexString(sq.qpn()) +
                " is already attached to " + poller);
        }
        Ownership.merge(ownership, sq.core().ownership());
        sends.put(sq.qpn(), sq);
    }

    void attach(final RecvQueue rq, final CqPoller poller, final Ownership ownership)
    {
        pruneDead();
        final OrderedReceive q = rq.cqSide();
        final boolean tagged = q.flowTagged();
        if (raw != null || striding != null || (tagged && liveRecvs() > 0))
        {
            throw new IllegalArgumentException("a CQ that completes a RAW_PACKET QP's or a WQ's receives serves no " +
                "other receive queue (its CQEs carry flow tags, not QP numbers): " + rq + " on " + poller);
        }
        if (recvs.get(rq.qpn()) instanceof OrderedReceive)
        {
            throw new IllegalArgumentException("a RecvQueue for QP 0x" + Integer.toHexString(rq.qpn()) +
                " is already attached to " + poller);
        }
        Ownership.merge(ownership, q.ownership());
        if (tagged)
        {
            raw = q;
            rawCsumValid = q.ipCsumValid();
            taggedRetired = false;
        }
        else
        {
            recvs.put(rq.qpn(), q);
        }
    }

    void attach(final StridingReceive q, final CqPoller poller, final Ownership ownership)
    {
        pruneDead();
        if (raw != null || striding != null || liveRecvs() > 0)
        {
            throw new IllegalArgumentException("a CQ that completes a striding WQ serves no other receive queue: " + q +
                " on " + poller);
        }
        Ownership.merge(ownership, q.ownership());
        striding = q;
        stridingFillers = 0;
        taggedRetired = false;
    }

    void attach(final SrqRecvQueue srq, final Ownership ownership)
    {
        final SharedReceive q = srq.cqSide();
        final int index = srq.xrcCqeIndex();
        if (index >= 0 && xrcSrqs.get(index) instanceof SharedReceive other && other != q && !other.dead())
        {
            throw new IllegalArgumentException(srq + ": an attached XRC SRQ has CQE index 0x" +
                Integer.toHexString(index) + " already (" + other + ")");
        }
        Ownership.merge(ownership, q.ownership());
        if (index >= 0)
        {
            xrcSrqs.put(index, q);
        }
        if (!Arrays.asList(srqs).contains(q))
        {
            srqs = Arrays.copyOf(srqs, srqs.length + 1);
            srqs[srqs.length - 1] = q;
        }
    }

    void bind(final SrqRecvQueue srq, final QueuePair qp, final CqPoller poller)
    {
        pruneDead();
        if (srqBindings.get(qp.qpn()) instanceof SrqBinding)
        {
            throw new IllegalArgumentException("QP 0x" + Integer.toHexString(qp.qpn()) + " already receives from "
                + "an attached SRQ on " + poller);
        }
        srqBindings.put(qp.qpn(), new SrqBinding(srq.cqSide(), qp));
    }

    boolean detach(final SendQueue sq)
    {
        if (sends.get(sq.qpn()) != sq)
        {
            return false;
        }
        retire(sends, sq.qpn(), null);
        sq.core().ownership(Ownership.leave(sq.core().ownership(), sq));
        return true;
    }

    boolean detach(final RecvQueue rq)
    {
        final OrderedReceive q = rq.cqSide();
        if (raw == q)
        {
            raw = null;
            taggedRetired = true;
        }
        else if (recvs.get(rq.qpn()) == q)
        {
            retire(recvs, rq.qpn(), null);
        }
        else
        {
            return false;
        }
        q.ownership(Ownership.leave(q.ownership(), q.queue()));
        return true;
    }

    boolean detach(final StridingReceive q)
    {
        if (striding != q)
        {
            return false;
        }
        striding = null;
        stridingFillers = 0;
        taggedRetired = true;
        q.ownership(Ownership.leave(q.ownership(), q.queue()));
        return true;
    }

    boolean detach(final SrqRecvQueue srq)
    {
        final SharedReceive q = srq.cqSide();
        boolean found = false;
        final int[] bound = new int[srqBindings.size()];
        int n = 0;
        for (int i = 0; i < srqBindings.capacity(); i++)
        {
            if (srqBindings.valueAt(i) instanceof SrqBinding b && b.srq == q)
            {
                bound[n++] = srqBindings.keyAt(i);
            }
        }
        for (int i = 0; i < n; i++)
        {
            retire(srqBindings, bound[i], null);
            found = true;
        }
        final int index = srq.xrcCqeIndex();
        if (index >= 0 && xrcSrqs.get(index) == q)
        {
            retire(xrcSrqs, index, null);
        }
        final int i = Arrays.asList(srqs).indexOf(q);
        if (i >= 0)
        {
            final SharedReceive[] fewer = new SharedReceive[srqs.length - 1];
            System.arraycopy(srqs, 0, fewer, 0, i);
            System.arraycopy(srqs, i + 1, fewer, i, srqs.length - 1 - i);
            srqs = fewer;
            found = true;
        }
        if (found)
        {
            q.ownership(Ownership.leave(q.ownership(), q.queue()));
        }
        return found;
    }

    /**
     * Retires the queues of destroyed QPs and WQs. Their numbers may be reused by new QPs, whose queues may then be
     * attached; the look-ups skip dead queues too, so a CQE of a new QP never reaches an old queue.
     */
    private void pruneDead()
    {
        // the keys first, then the retirements: a retirement may drop an old mark, which moves entries of the table
        for (final int qpn : matching(sends, DEAD))
        {
            retire(sends, qpn, null);
        }
        for (final int qpn : matching(recvs, DEAD))
        {
            retire(recvs, qpn, null);
        }
        for (final int qpn : matching(srqBindings, DEAD))
        {
            retire(srqBindings, qpn, ((SrqBinding)srqBindings.get(qpn)).srq);
        }
        if (raw != null && raw.dead())
        {
            raw = null;
            taggedRetired = true;
        }
        if (striding != null && striding.dead())
        {
            striding = null;
            stridingFillers = 0;
            taggedRetired = true;
        }
    }

    /** {@link #matching}: a queue whose QP or WQ is destroyed. */
    private static final int DEAD = 0;
    /** {@link #matching}: a live queue or binding (not a retired mark). */
    private static final int LIVE = 1;

    /** The keys of {@code table} whose values are DEAD or LIVE queues or SRQ bindings. */
    private static int[] matching(final QpnTable table, final int which)
    {
        final int[] keys = new int[table.size()];
        int n = 0;
        for (int i = 0; i < table.capacity(); i++)
        {
            final Object v = table.valueAt(i);
            final boolean dead = v instanceof SendQueue s ? s.dead() : v instanceof OrderedReceive r ? r.dead() :
                v instanceof SrqBinding b && b.qp.isClosed();
            if (v != null && !(v instanceof Retired) && dead == (which == DEAD))
            {
                keys[n++] = table.keyAt(i);
            }
        }
        return Arrays.copyOf(keys, n);
    }

    private int liveRecvs()
    {
        return matching(recvs, LIVE).length;
    }

    /** Replaces {@code key}'s queue by a retired mark, and drops the oldest mark beyond {@link #RETIRED_LIMIT}. */
    private void retire(final QpnTable table, final int key, final SharedReceive srq)
    {
        if (retiredKey == null)
        {
            retiredKey = new int[RETIRED_LIMIT];
            retiredSeq = new long[RETIRED_LIMIT];
            retiredIn = new QpnTable[RETIRED_LIMIT];
        }
        final long seq = retirements++;
        final int slot = (int)(seq % RETIRED_LIMIT);
        final QpnTable oldTable = retiredIn[slot];
        if (oldTable != null && oldTable.get(retiredKey[slot]) instanceof Retired old && old.seq == retiredSeq[slot])
        {
            oldTable.remove(retiredKey[slot]);
        }
        table.put(key, new Retired(seq, srq));
        retiredKey[slot] = key;
        retiredSeq[slot] = seq;
        retiredIn[slot] = table;
        if (table == sends && key == lastSendQpn)
        {
            lastSendQpn = -1;
            lastSend = null;
        }
        if (table == recvs && key == lastRecvQpn)
        {
            lastRecvQpn = -1;
            lastRecv = null;
        }
    }
}
