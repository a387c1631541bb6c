// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

import io.mlx5j.bindings.CallState;
import io.mlx5j.bindings.IbvXrcdInitAttr;
import io.mlx5j.bindings.InlineVerbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static io.mlx5j.bindings.CTypes.C_INT;
import static io.mlx5j.bindings.CTypes.C_POINTER;
import static io.mlx5j.bindings.CTypes.U32;

/**
 * An XRC domain ({@code struct ibv_xrcd}, {@code ibv_open_xrcd}): the scope of XRC SRQs and XRC TGT QPs. A request
 * that an XRC INI QP sends reaches a TGT QP of the domain, and is received into the XRC SRQ of the same domain that
 * the WQE names ({@code SendQueue.xrcSrqn}).
 * <p>
 * A private domain ({@link Context#openXrcDomain()}) belongs to one context. A domain opened through a file
 * descriptor ({@link Context#openXrcDomain(int, boolean, boolean)}) belongs to the file: every process that opens
 * the same file gets the same domain, as Linux's uverbs keys domains by the file's inode.
 * <p>
 * Thread model: as every control-path object (see the package comment), its creation and close are serialised on
 * the Context. Closing it first closes the XRC SRQs and TGT QPs created in it.
 */
public final class XrcDomain extends NativeResource
{
    /** O_CREAT of asm-generic/fcntl.h (octal 0100), which ibv_open_xrcd's oflags take. */
    static final int O_CREAT = 0x40;
    /** O_EXCL of asm-generic/fcntl.h (octal 0200). */
    static final int O_EXCL = 0x80;

    private final int fd;

    private XrcDomain(final Context context, final Arena arena, final MemorySegment handle, final int fd)
    {
        super(context, arena, handle, List.of());
        this.fd = fd;
    }

    static XrcDomain open(final Context context, final int fd, final int oflags)
    {
        final Arena arena = Arena.ofShared();
        try
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment attr = arena.allocate(IbvXrcdInitAttr.LAYOUT);
            attr.set(U32, IbvXrcdInitAttr.COMP_MASK_OFFSET,
                IbvXrcdInitAttr.IBV_XRCD_INIT_ATTR_FD | IbvXrcdInitAttr.IBV_XRCD_INIT_ATTR_OFLAGS);
            attr.set(C_INT, IbvXrcdInitAttr.FD_OFFSET, fd);
            attr.set(C_INT, IbvXrcdInitAttr.OFLAGS_OFFSET, oflags);
            final MemorySegment raw = InlineVerbs.ibv_open_xrcd(state, context.handle, attr);
            if (raw.address() == 0)
            {
                final int errno = CallState.errno(state);
                throw new VerbsException("ibv_open_xrcd", errno, (fd < 0 ? "private domain" : "fd " + fd) +
                    ", oflags 0x" + Integer.toHexString(oflags) + hint(errno));
            }
            return new XrcDomain(context, arena, raw.reinterpret(C_POINTER.byteSize(), arena, null), fd);
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
    }

    /** The errnos uverbs' OPEN_XRCD gives, in words. */
    private static String hint(final int errno)
    {
        return switch (errno)
        {
            case 9 -> ": the file descriptor is not open (EBADF)";
            case 11 -> ": the file has no XRC domain yet and create was not asked (EAGAIN)";
            case 22 -> ": the file already has an XRC domain and exclusive was asked (EINVAL)";
            case 95 -> ": the device has no XRC (EOPNOTSUPP)";
            default -> "";
        };
    }

    /** {@return the file descriptor the domain was opened through, -1 for a private domain} */
    public int fd()
    {
        return fd;
    }

    /** {@return the context the domain was opened in} */
    public Context context()
    {
        return owner;
    }

    /**
     * Creates an XRC TGT QP in this domain ({@code ibv_create_qp_ex} with IBV_QPT_XRC_RECV and IBV_QP_INIT_ATTR_XRCD),
     * in RESET. Connect it to the peer's XRC INI QP with {@link QueuePair#toInit}, {@link QueuePair#toRtr},
     * {@link QueuePair#toRts} (the masks are in the QueuePair class comment). It has no rings: its receives are
     * WQEs of the domain's XRC SRQs.
     *
     * @return the new TGT QP
     * @throws VerbsException if libibverbs refuses
     */
    public QueuePair createTgtQp()
    {
        synchronized (lock())
        {
            ensureOpen();
            return QueuePair.createTgt(this);
        }
    }

    @Override
    int destroy(final MemorySegment address)
    {
        return InlineVerbs.ibv_close_xrcd(address);
    }

    @Override
    String destroyCall()
    {
        return "ibv_close_xrcd";
    }

    @Override
    public String toString()
    {
        return "XrcDomain(" + (fd < 0 ? "private" : "fd " + fd) + (isClosed() ? ", closed)" : ")");
    }
}
