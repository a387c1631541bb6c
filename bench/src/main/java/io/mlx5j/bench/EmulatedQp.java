// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

import io.mlx5j.bindings.IbvQpInitAttrEx;
import io.mlx5j.verbs.Access;
import io.mlx5j.verbs.AddressVector;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.Gid;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.PeerInfo;
import io.mlx5j.verbs.PortAttributes;
import io.mlx5j.verbs.ProtectionDomain;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;

/**
 * The QP every post/poll benchmark runs on: an RC QP on the emulated ConnectX, connected (RTS) to a twin RC QP of the
 * same configuration, each with its own send CQ. Every variant (mlx5j, libmlx5 through FFM, the C harness in
 * {@code src/main/c}) builds exactly this: same PD, same queue sizes, same {@code send_ops_flags}, so libmlx5 and
 * mlx5j post into rings of the same geometry.
 * <p>
 * The emulator must run with its engine off ({@code MLX5EMU_ENGINE=off}): nothing but the benchmark thread touches
 * the rings, so the numbers are the CPU cost of the software paths. Completions come from a
 * {@link SyntheticCompleter}; it needs the QP's user index, which libmlx5 chose and passed to the (emulated) kernel
 * under cqe_version 1 ({@code srqn_uidx} of requester CQEs), read back here through the emulator's debug API
 * ({@code mlx5emu_debug_qp}, emulator/src/mlx5emu_debug.h).
 * <p>
 * Confinement: created and used by one benchmark thread (JMH {@code Scope.Thread} state).
 */
public final class EmulatedQp implements AutoCloseable
{
    /** max_send_wr: room for one benchmark batch ({@link Workload#BATCH} WRs) with margin. */
    public static final int MAX_SEND_WR = 256;
    /** max_inline_data: the largest inline SEND measured. */
    public static final int MAX_INLINE = 64;
    /** CQ depth asked for; libmlx5 makes it 256 CQEs (the next power of two of depth + 1). */
    public static final int CQ_DEPTH = 255;
    /** Bytes of registered memory: source buffers and inline payloads. */
    public static final int MR_BYTES = 64 * 1024;

    private static final long SEND_OPS =
        IbvQpInitAttrEx.IBV_QP_EX_WITH_RDMA_WRITE | IbvQpInitAttrEx.IBV_QP_EX_WITH_SEND;

    public final Context context;
    public final ProtectionDomain pd;
    public final MemoryRegion mr;
    public final CompletionQueue cq;
    public final QueuePair qp;
    public final CompletionQueue twinCq;
    public final QueuePair twin;
    /** The user index of {@link #qp} as the emulated kernel recorded it (cqe_version 1 requester CQEs carry it). */
    public final int uidx;
    private final Arena memory;

    private EmulatedQp()
    {
        ForkArgs.requireExport();
        requireIdleEmulator();
        context = Context.openFirst();
        memory = Arena.ofShared();
        try
        {
            pd = context.allocPd();
            mr = pd.register(memory.allocate(MR_BYTES, 4096), Access.ALL_REMOTE);
            cq = context.createCq(CQ_DEPTH);
            twinCq = context.createCq(CQ_DEPTH);
            qp = pd.createQp(config(cq));
            twin = pd.createQp(config(twinCq));
            final PortAttributes port = context.queryPort(1);
            // bench/run.sh runs on an Ethernet port (the raw packet benchmarks need one): there the twins are RoCE v2
            // (GID index 1, a GRH in the address), which changes nothing in the WQEs or CQEs of an RC QP
            final Gid gid = context.queryGid(1, port.isEthernet() ? 1 : 0);
            final AddressVector path = port.isEthernet() ? AddressVector.global(1, gid, 1, 64, 0)
                : AddressVector.ib(1, port.lid(), 0);
            final int lid = port.isEthernet() ? 0 : port.lid();
            qp.connect(1, Access.ALL_REMOTE, 0, port.activeMtu(), PeerInfo.of(lid, twin.qpn(), 200, gid), path, 100);
            twin.connect(1, Access.ALL_REMOTE, 0, port.activeMtu(), PeerInfo.of(lid, qp.qpn(), 100, gid), path, 200);
            uidx = emulatorUidx(qp.qpn());
        }
        catch (final RuntimeException ex)
        {
            context.close();
            memory.close();
            throw ex;
        }
    }

    /** Opens the device and builds the connected pair. */
    public static EmulatedQp open()
    {
        return new EmulatedQp();
    }

    private static QpConfig config(final CompletionQueue cq)
    {
        return QpConfig.builder(QpType.RC, cq)
            .maxSendWr(MAX_SEND_WR)
            .maxRecvWr(1)
            .maxSendSge(1)
            .maxRecvSge(1)
            .maxInlineData(MAX_INLINE)
            .sendOpsFlags(SEND_OPS)
            .build();
    }

    /** Registered memory: {@link #MR_BYTES} bytes. */
    public MemorySegment memory()
    {
        return mr.memory();
    }

    @Override
    public void close()
    {
        context.close();
        memory.close();
    }

    static void requireIdleEmulator()
    {
        final String preload = System.getenv("LD_PRELOAD");
        if (preload == null || !preload.contains("libmlx5emu.so"))
        {
            throw new IllegalStateException("run the benchmarks on the emulated device: emulator/mlx5emu -- java ... "
                + "(LD_PRELOAD=" + preload + ")");
        }
        if (!"off".equals(System.getenv("MLX5EMU_ENGINE")))
        {
            throw new IllegalStateException("set MLX5EMU_ENGINE=off: with the engine running, the device would consume "
                + "the rings the synthetic completer recycles and its thread would share the 2 cores");
        }
    }

    /** {@code mlx5emu_debug_qp(qpn, &out)}; {@code uidx} is the fourth uint32_t of struct mlx5emu_debug_qp. */
    static int emulatorUidx(final int qpn)
    {
        String lib = null;
        for (final String part : System.getenv("LD_PRELOAD").split("[: ]"))
        {
            if (part.endsWith("libmlx5emu.so"))
            {
                lib = part;
            }
        }
        // dlopen of the preloaded library returns the copy already mapped into the process
        final SymbolLookup lookup = SymbolLookup.libraryLookup(Path.of(lib), Arena.global());
        final MethodHandle debugQp = Linker.nativeLinker().downcallHandle(
            lookup.find("mlx5emu_debug_qp").orElseThrow(() -> new IllegalStateException("no mlx5emu_debug_qp in " +
                "the preloaded emulator")),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        try (Arena tmp = Arena.ofConfined())
        {
            final MemorySegment out = tmp.allocate(512, 8); // struct mlx5emu_debug_qp is 184 bytes
            final int rc = (int) debugQp.invokeExact(qpn, out);
            if (rc != 0)
            {
                throw new IllegalStateException("emulator does not know QP 0x" + Integer.toHexString(qpn));
            }
            final int gotQpn = out.get(ValueLayout.JAVA_INT, 0);
            if (gotQpn != qpn)
            {
                throw new IllegalStateException("mlx5emu_debug_qp answered for QP 0x" + Integer.toHexString(gotQpn));
            }
            return out.get(ValueLayout.JAVA_INT, 12);
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
