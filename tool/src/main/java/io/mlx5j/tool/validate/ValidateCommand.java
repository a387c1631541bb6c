// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.validate;

import io.mlx5j.doorbell.Dma;
import io.mlx5j.memory.RingStores;
import io.mlx5j.tool.Args;
import io.mlx5j.tool.UsageException;
import io.mlx5j.tool.selfcheck.SelfCheck;
import io.mlx5j.tool.validate.Report.Verdict;
import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.DeviceCapabilities;
import io.mlx5j.verbs.DeviceList;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * {@code mlx5j validate [-d NAME] [--json FILE] [--gid-index N]}: what mlx5j needs of this machine, checked on the
 * mlx5 device it would use: the rdma-core release, the device's capabilities (read at run time), a loopback of every
 * RC opcode mlx5j posts with its data verified, an error completion, NIC timestamps against CLOCK_REALTIME, the
 * doorbell, store and fence modes in use and the WQE encoder's self-check. Exit status 0 when nothing failed.
 */
public final class ValidateCommand
{
    public static final String USAGE = "usage: mlx5j validate [-d NAME] [--json FILE] [--gid-index N]   "
        + "(checks rdma-core, the device's capabilities, RC traffic of every opcode, timestamps; exit 1 on a failure)";

    private ValidateCommand()
    {
    }

    public static int run(final String[] argv, final PrintStream out)
    {
        String device = null;
        Path json = null;
        int gidIndex = 1;
        final Args a = new Args(argv);
        while (a.hasNext())
        {
            final String o = a.nextToken();
            switch (o)
            {
                case "-d", "--device", "--ib-dev" -> device = a.value(o);
                case "--json" -> json = Path.of(a.value(o));
                case "--gid-index", "-x" -> gidIndex = a.intValue(o, 0, 255);
                case "--emulated" -> a.noValue(o);
                default -> throw new UsageException("unknown option '" + o + "'");
            }
        }
        final Report report = new Report(out);
        out.println("mlx5j validate" + io.mlx5j.tool.Mlx5jTool.platform());
        try (DeviceList list = DeviceList.open())
        {
            library(report);
            if (list.size() == 0)
            {
                report.check("device", Verdict.FAIL, "no RDMA device");
            }
            else
            {
                try (Context ctx = device == null ? Context.openFirst() : Context.open(device))
                {
                    final DeviceCapabilities caps = capabilities(ctx, report);
                    modes(report);
                    report.section("traffic (RC, QP connected to itself):");
                    new TrafficCheck(report).run(ctx, caps, gidIndex);
                }
            }
        }
        selfCheck(report);
        out.println("validate: " + (report.passed() ? "PASS" : "FAIL") + " (" + report.count(Verdict.PASS)
            + " passed, " + report.count(Verdict.WARN) + " warnings, " + report.count(Verdict.FAIL) + " failed)");
        if (json != null)
        {
            try
            {
                report.writeJson(json);
                out.println("report written to " + json);
            }
            catch (final IOException ex)
            {
                out.println("FAIL cannot write " + json + ": " + ex.getMessage());
                return 1;
            }
        }
        return report.passed() ? 0 : 1;
    }

    private static void library(final Report report)
    {
        report.section("rdma-core:");
        final RdmaCoreVersion v;
        try
        {
            v = RdmaCoreVersion.running();
        }
        catch (final IOException | NumberFormatException ex)
        {
            report.check("rdma-core release", Verdict.FAIL, "cannot tell the running release: " + ex.getMessage());
            return;
        }
        report.fact("libibverbs", v.verbsFile());
        report.fact("libmlx5", v.mlx5File());
        report.fact("rdma-core release", v.verbsRelease());
        final int r = Math.min(v.verbsRelease(), v.mlx5Release());
        if (v.verbsRelease() != v.mlx5Release())
        {
            report.check("rdma-core release", Verdict.FAIL, "libibverbs is release " + v.verbsRelease()
                + " but libmlx5 is release " + v.mlx5Release() + ": one rdma-core installation must provide both");
        }
        else if (RdmaCoreVersion.verified(r))
        {
            report.check("rdma-core release", Verdict.PASS, r + " (a release mlx5j is verified with: "
                + RdmaCoreVersion.verifiedList() + ")");
        }
        else if (r > RdmaCoreVersion.OLDEST)
        {
            report.check("rdma-core release", Verdict.WARN, r + " is not one of the verified releases "
                + RdmaCoreVersion.verifiedList() + ": compatible (libibverbs keeps its ABI and extends structs at the "
                + "end), but not verified; run the traffic checks below and report the result");
        }
        else
        {
            report.check("rdma-core release", Verdict.FAIL, (r < 0 ? "unknown release (library names "
                + v.verbsFile() + ", " + v.mlx5File() + ")" : "release " + r) + " is not supported: mlx5j needs "
                + "rdma-core " + RdmaCoreVersion.OLDEST + " or newer (its struct layouts and libmlx5's GET_CONTEXT "
                + "handling were verified on " + RdmaCoreVersion.OLDEST + ")");
        }
    }

    private static DeviceCapabilities capabilities(final Context ctx, final Report report)
    {
        report.section("device " + ctx.deviceName() + ":");
        final DeviceCapabilities c = DeviceCapabilities.query(ctx);
        report.fact("vendor_id", String.format("0x%04x", c.vendorId()));
        report.fact("vendor_part_id", c.vendorPartId());
        report.fact("model", model(c.vendorPartId()));
        report.fact("firmware", c.firmware());
        report.fact("link layer", c.ethernet() ? "Ethernet" : "InfiniBand");
        report.fact("cqe_version", c.cqeVersion());
        report.fact("min inline header bytes", c.minInlineHeaderBytes());
        report.fact("hca_core_clock (kHz)", c.hcaCoreClockKhz());
        report.fact("completion_timestamp_mask", String.format("0x%x", c.completionTimestampMask()));
        report.fact("real-time timestamps", c.realTimeTimestamps());
        report.fact("max_clock_info_update_nsec", c.maxClockInfoUpdateNsec());
        report.fact("max_tso", c.maxTso());
        report.fact("cqe compression max_num", c.cqeCompressionMaxNum());
        report.fact("cqe compression formats", String.format("0x%x", c.cqeCompressionFormats()));
        report.fact("striding rq log stride bytes",
            c.stridingMinLogStrideBytes() + ".." + c.stridingMaxLogStrideBytes());
        report.fact("striding rq log strides", c.stridingMinLogStrides() + ".." + c.stridingMaxLogStrides());
        report.fact("striding rq qp types", String.format("0x%x", c.stridingQpTypes()));
        final boolean mlx = c.vendorId() == 0x02c9;
        report.check("mlx5 device", mlx ? Verdict.PASS : Verdict.FAIL, mlx ? model(c.vendorPartId())
            : "vendor 0x" + Integer.toHexString(c.vendorId()) + " is not Mellanox/NVIDIA");
        report.check("CQE version", c.cqeVersion() == 1 ? Verdict.PASS : Verdict.FAIL, c.cqeVersion() == 1
            ? "1 (user index in the CQE)" : "0: mlx5j's CQ parsing expects CQE version 1");
        return c;
    }

    static String model(final int part)
    {
        return switch (part)
        {
            case 4115 -> "ConnectX-4";
            case 4117 -> "ConnectX-4 Lx";
            case 4119 -> "ConnectX-5";
            case 4121 -> "ConnectX-5 Ex";
            case 4123 -> "ConnectX-6";
            case 4125 -> "ConnectX-6 Dx";
            case 4127 -> "ConnectX-6 Lx";
            case 4129 -> "ConnectX-7";
            case 4131 -> "ConnectX-8";
            default -> "unknown part " + part;
        };
    }

    private static void modes(final Report report)
    {
        report.section("memory and doorbell paths:");
        report.fact("architecture", System.getProperty("os.arch"));
        report.fact("WQE stores", RingStores.mode());
        report.fact("write-combining fence", Dma.wcFence());
    }

    private static void selfCheck(final Report report)
    {
        report.section("WQE encoder self-check:");
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final int n = SelfCheck.run(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try
        {
            final String digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(bytes.toByteArray()));
            report.fact("selfcheck sha256", digest);
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException(ex);
        }
        report.check("WQE encoder self-check", n == 8 ? Verdict.PASS : Verdict.FAIL, n + " WQEs encoded "
            + "(compare the sha256 with the other host's and with `mlx5j selfcheck`'s)");
    }
}
