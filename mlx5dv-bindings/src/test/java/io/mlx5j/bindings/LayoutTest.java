package io.mlx5j.bindings;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The proof that the hand-written layouts are the C structs: src/test/c/layout_probe.c is compiled with gcc against
 * the installed /usr/include/infiniband headers and prints sizeof/alignof of every struct and
 * offsetof/sizeof/alignof of every member; every line must equal what the Java layouts say, and every Java struct
 * and member must have a C line (and vice versa).
 */
class LayoutTest
{
    /** Every struct the project touches (issue 2); a class removed or renamed must fail here, not silently pass. */
    private static final Set<String> REQUIRED = Set.of(
        "ibv_device", "ibv_context", "ibv_context_ops", "verbs_context", "ibv_pd", "ibv_mr", "ibv_cq", "ibv_cq_ex",
        "ibv_cq_init_attr_ex", "ibv_qp", "ibv_qp_cap", "ibv_qp_init_attr", "ibv_qp_init_attr_ex", "ibv_qp_attr",
        "ibv_port_attr", "ibv_gid", "ibv_global_route", "ibv_ah_attr", "ibv_ah", "ibv_sge", "ibv_send_wr",
        "ibv_recv_wr", "ibv_wc", "ibv_qp_ex", "ibv_srq", "ibv_srq_attr", "ibv_srq_init_attr", "ibv_device_attr",
        "ibv_comp_channel", "ibv_data_buf", "mlx5dv_obj", "mlx5dv_qp", "mlx5dv_cq", "mlx5dv_srq", "mlx5dv_ah", "mlx5dv_pd", "mlx5dv_cq_init_attr",
        "mlx5_wqe_srq_next_seg", "mlx5_wqe_data_seg", "mlx5_wqe_ctrl_seg", "mlx5_wqe_av", "mlx5_wqe_datagram_seg",
        "mlx5_wqe_raddr_seg", "mlx5_wqe_atomic_seg", "mlx5_wqe_inl_data_seg", "mlx5_wqe_eth_seg", "mlx5_wqe_tm_seg",
        "mlx5_wqe_umr_ctrl_seg", "mlx5_wqe_umr_klm_seg", "mlx5_wqe_umr_repeat_ent_seg",
        "mlx5_wqe_umr_repeat_block_seg", "mlx5_wqe_mkey_context_seg", "mlx5_cqe64", "mlx5_err_cqe", "mlx5_tm_cqe");

    private static Map<String, String> cLines;
    private static Map<String, String> javaLines;
    private static List<GroupLayout> layouts;

    @BeforeAll
    static void probe() throws Exception
    {
        final Path src = Path.of("src/test/c/layout_probe.c");
        final Path exe = Path.of("target/layout_probe");
        Files.createDirectories(exe.getParent());
        run(List.of("gcc", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-o", exe.toString(), src.toString()));
        cLines = new TreeMap<>();
        for (final String line : run(List.of(exe.toString())).split("\n"))
        {
            final String[] f = line.split(" ");
            final int keyFields = f[0].equals("S") ? 2 : 3;
            final String key = String.join(" ", List.of(f).subList(0, keyFields));
            final String value = String.join(" ", List.of(f).subList(keyFields, f.length));
            if (cLines.put(key, value) != null)
            {
                fail("C probe prints " + key + " twice");
            }
        }
        layouts = JavaLayouts.all();
        javaLines = JavaLayouts.lines(layouts);
    }

    @Test
    void everyJavaStructAndMemberEqualsTheCompilersView()
    {
        final List<String> problems = new ArrayList<>();
        javaLines.forEach((key, java) ->
        {
            final String c = cLines.get(key);
            if (c == null)
            {
                problems.add(key + ": in Java (" + java + ") but not in the C probe");
            }
            else if (!c.equals(java))
            {
                problems.add(key + ": C says " + c + ", Java says " + java);
            }
        });
        cLines.forEach((key, c) ->
        {
            if (!javaLines.containsKey(key))
            {
                problems.add(key + ": in the C probe (" + c + ") but not in Java");
            }
        });
        if (!problems.isEmpty())
        {
            fail(problems.size() + " layout differences:\n" + String.join("\n", problems));
        }
        assertEquals(cLines.keySet(), javaLines.keySet());
    }

    @Test
    void everyRequiredStructIsBoundAndNoneTwice()
    {
        final Set<String> names = new TreeSet<>();
        for (final GroupLayout layout : layouts)
        {
            assertTrue(names.add(layout.name().orElseThrow()), "two classes bind " + layout.name());
        }
        final Set<String> missing = new TreeSet<>(REQUIRED);
        missing.removeAll(names);
        assertTrue(missing.isEmpty(), "no Java layout for " + missing);
    }

    /** The C probe really compiled the structs the brief singles out; guards against an empty or truncated probe. */
    @Test
    void probeSeesThePackedCtrlSegAndTheSendWrUnions()
    {
        assertEquals("16 4", cLines.get("S mlx5_wqe_ctrl_seg"));
        assertEquals("9 2 1", cLines.get("F mlx5_wqe_ctrl_seg dci_stream_channel_id"));
        assertEquals(Mlx5WqeCtrlSeg.DCI_STREAM_CHANNEL_ID_OFFSET, 9);
        assertEquals("40 32 8", cLines.get("F ibv_send_wr wr"));
        assertEquals(IbvSendWr.ATOMIC_RKEY_OFFSET + " 4 4", cLines.get("F ibv_send_wr wr.atomic.rkey"));
        assertEquals(VerbsContext.CONTEXT_OFFSET + " " + IbvContext.LAYOUT.byteSize() + " 8",
            cLines.get("F verbs_context context"));
        assertTrue(cLines.size() > 700, "probe printed only " + cLines.size() + " lines");
    }

    private static String run(final List<String> command) throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0)
        {
            fail(String.join(" ", command) + " failed:\n" + new String(out, StandardCharsets.UTF_8));
        }
        return new String(out, StandardCharsets.UTF_8);
    }
}
