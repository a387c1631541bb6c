// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
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
 * and member must have a C line (and vice versa). The probe is built with {@code -g}, and the member lists gcc
 * records in its DWARF (read with readelf) must equal the Java member lists level by level, so a C member the Java
 * side forgot, or hid in padding, fails too.
 */
class LayoutTest
{
    /** Every struct the project touches; a class removed or renamed must fail here, not silently pass. */
    private static final Set<String> REQUIRED = Set.of(
        "ibv_device", "ibv_context", "ibv_context_ops", "verbs_context", "ibv_pd", "ibv_mr", "ibv_cq", "ibv_cq_ex",
        "ibv_cq_init_attr_ex", "ibv_qp", "ibv_qp_cap", "ibv_qp_init_attr", "ibv_qp_init_attr_ex", "ibv_qp_attr",
        "ibv_port_attr", "ibv_gid", "ibv_global_route", "ibv_ah_attr", "ibv_ah", "ibv_sge", "ibv_send_wr",
        "ibv_recv_wr", "ibv_wc", "ibv_qp_ex", "ibv_srq", "ibv_srq_attr", "ibv_srq_init_attr", "ibv_device_attr",
        "ibv_comp_channel", "ibv_data_buf", "ibv_async_event",
        "mlx5dv_obj", "mlx5dv_qp", "mlx5dv_cq", "mlx5dv_srq", "mlx5dv_ah", "mlx5dv_pd", "mlx5dv_cq_init_attr",
        "mlx5_wqe_av", "rdma_event_channel", "rdma_cm_id", "rdma_route", "rdma_addr", "rdma_ib_addr", "rdma_conn_param",
        "rdma_ud_param", "rdma_cm_event", "ibv_sa_path_rec", "sockaddr", "sockaddr_in", "sockaddr_in6",
        "sockaddr_storage",
        // the market-data path
        "ibv_flow_attr", "ibv_flow", "ibv_flow_eth_filter", "ibv_flow_spec_eth", "ibv_flow_ipv4_filter",
        "ibv_flow_spec_ipv4", "ibv_flow_ipv6_filter", "ibv_flow_spec_ipv6", "ibv_flow_tcp_udp_filter",
        "ibv_flow_spec_tcp_udp", "ibv_flow_spec_action_tag", "ibv_flow_spec_action_drop", "mlx5dv_clock_info",
        "mlx5_ib_clock_info", "ibv_poll_cq_attr",
        // receive WQs, striding RQ, RSS
        "ibv_wq", "ibv_wq_init_attr", "ibv_wq_attr", "ibv_rwq_ind_table", "ibv_rwq_ind_table_init_attr",
        "ibv_rx_hash_conf", "mlx5dv_rwq", "mlx5dv_wq_init_attr", "mlx5dv_striding_rq_init_attr",
        // DC: mlx5dv_create_qp
        "mlx5dv_qp_init_attr", "mlx5dv_dc_init_attr", "mlx5dv_qp_ex",
        // XRC: domains and XRC SRQs
        "ibv_xrcd_init_attr", "ibv_srq_init_attr_ex", "ibv_tm_cap",
        // libc: the event channels' timed waits
        "pollfd");

    private static Map<String, String> cLines;
    private static Map<String, String> javaLines;
    private static List<GroupLayout> layouts;
    private static DwarfStructs dwarf;

    @BeforeAll
    static void probe() throws Exception
    {
        final Path src = Path.of("src/test/c/layout_probe.c");
        final Path exe = Path.of("target/layout_probe");
        Files.createDirectories(exe.getParent());
        run(List.of("gcc", "-std=gnu11", "-g", "-Wall", "-Wextra", "-Werror", "-o", exe.toString(), src.toString()));
        dwarf = new DwarfStructs(run(List.of("readelf", "--debug-dump=info", exe.toString())));
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

    /**
     * Completeness, independent of the probe's member list: every member gcc declares (DWARF of the probe), at every
     * nesting level, appears in the Java layout in the same order, anonymous unions/structs as {@code $anon} groups.
     * A C member modelled as padding, or a Java member C does not have, fails here.
     */
    @Test
    void everyCMemberAtEveryLevelIsInTheJavaLayout()
    {
        final List<String> problems = new ArrayList<>();
        for (final GroupLayout layout : layouts)
        {
            final String name = layout.name().orElseThrow();
            final DwarfStructs.Die die = dwarf.struct(name);
            if (die == null)
            {
                problems.add(name + ": no definition in the DWARF of the probe");
                continue;
            }
            compareMembers(name, die, layout, problems);
        }
        if (!problems.isEmpty())
        {
            fail(problems.size() + " completeness problems:\n" + String.join("\n", problems));
        }
    }

    private static void compareMembers(final String path, final DwarfStructs.Die c, final GroupLayout group,
        final List<String> problems)
    {
        final List<DwarfStructs.Die> cMembers = DwarfStructs.members(c);
        final List<MemoryLayout> jMembers = new ArrayList<>();
        for (final MemoryLayout m : group.memberLayouts())
        {
            if (!(m instanceof PaddingLayout))
            {
                jMembers.add(m);
            }
        }
        final List<String> cNames = new ArrayList<>();
        for (final DwarfStructs.Die m : cMembers)
        {
            cNames.add(m.name == null ? Layouts.ANON : m.name);
        }
        final List<String> jNames = new ArrayList<>();
        for (final MemoryLayout m : jMembers)
        {
            final String n = m.name().orElse("?");
            jNames.add(n.startsWith(Layouts.ANON) ? Layouts.ANON : n);
        }
        if (!cNames.equals(jNames))
        {
            problems.add(path + ": C members " + cNames + ", Java members " + jNames);
            return;
        }
        for (int i = 0; i < cMembers.size(); i++)
        {
            final DwarfStructs.Die type = dwarf.resolve(cMembers.get(i));
            final MemoryLayout j = jMembers.get(i);
            final long jOffset = group.byteOffset(MemoryLayout.PathElement.groupElement(j.name().orElseThrow()));
            if (cMembers.get(i).memberLocation != jOffset)
            {
                problems.add(path + "." + cNames.get(i) + ": C offset " + cMembers.get(i).memberLocation
                    + ", Java " + jOffset);
            }
            if (DwarfStructs.isGroup(type) && j instanceof GroupLayout inner)
            {
                compareMembers(path + "." + cNames.get(i), type, inner, problems);
            }
            else if (j instanceof GroupLayout && !DwarfStructs.isGroup(type))
            {
                problems.add(path + "." + cNames.get(i) + ": a group in Java but not a struct/union in C");
            }
            // a C struct/union modelled as an opaque Java array (pthread_mutex_t, pthread_cond_t) stays a leaf:
            // its size and alignment are checked by the probe
        }
    }

    /** The C probe really compiled the structs the brief singles out; guards against an empty or truncated probe. */
    @Test
    void probeSeesTheSendWrUnions()
    {
        assertEquals("40 32 8", cLines.get("F ibv_send_wr wr"));
        assertEquals(IbvSendWr.ATOMIC_RKEY_OFFSET + " 4 4", cLines.get("F ibv_send_wr wr.atomic.rkey"));
        assertEquals(VerbsContext.CONTEXT_OFFSET + " " + IbvContext.LAYOUT.byteSize() + " 8",
            cLines.get("F verbs_context context"));
        assertTrue(cLines.size() > 600, "probe printed only " + cLines.size() + " lines");
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
