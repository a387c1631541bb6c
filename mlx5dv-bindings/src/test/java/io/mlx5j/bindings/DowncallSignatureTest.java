// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every FunctionDescriptor is the C prototype: return and parameter ABI classes (pointer, bool, N-bit integer)
 * of each bound function, and of each provider function pointer InlineVerbs calls, compared with what gcc recorded
 * in DWARF from the installed headers (src/test/c/function_probe.c for exported functions, the layout probe for the
 * struct members that hold function pointers).
 */
class DowncallSignatureTest
{
    /** Provider function pointer (struct.member) and the InlineVerbs holder whose descriptor calls it. */
    private static final Map<String, String> POINTERS = Map.ofEntries(
        Map.entry("ibv_context_ops.post_send", "PostFn"),
        Map.entry("ibv_context_ops.post_recv", "PostFn"),
        Map.entry("ibv_context_ops.post_srq_recv", "PostFn"),
        Map.entry("ibv_context_ops.poll_cq", "PollCqFn"),
        Map.entry("ibv_context_ops.req_notify_cq", "PtrIntToIntFn"),
        Map.entry("verbs_context.query_port", "QueryPortFn"),
        Map.entry("verbs_context.query_device_ex", "QueryDeviceExFn"),
        Map.entry("verbs_context.create_qp_ex", "CreateExFn"),
        Map.entry("verbs_context.create_cq_ex", "CreateExFn"),
        Map.entry("verbs_context.ibv_create_flow", "CreateFlowFn"),
        Map.entry("verbs_context.ibv_destroy_flow", "DestroyFlowFn"),
        Map.entry("verbs_context.modify_wq", "ModifyWqFn"),
        Map.entry("verbs_context.destroy_wq", "DestroyObjFn"),
        Map.entry("verbs_context.create_rwq_ind_table", "CreateExFn"),
        Map.entry("verbs_context.destroy_rwq_ind_table", "DestroyObjFn"),
        Map.entry("verbs_context.open_xrcd", "CreateExFn"),
        Map.entry("verbs_context.close_xrcd", "DestroyObjFn"),
        Map.entry("verbs_context.create_srq_ex", "CreateExFn"),
        Map.entry("verbs_context.get_srq_num", "GetSrqNumFn"),
        Map.entry("ibv_wq.post_recv", "PostFn"),
        Map.entry("ibv_cq_ex.start_poll", "StartPollFn"),
        Map.entry("ibv_cq_ex.next_poll", "CqIntFn"),
        Map.entry("ibv_cq_ex.end_poll", "CqVoidFn"),
        Map.entry("ibv_cq_ex.read_byte_len", "CqIntFn"),
        Map.entry("ibv_cq_ex.read_wc_flags", "CqIntFn"),
        Map.entry("ibv_cq_ex.read_qp_num", "CqIntFn"),
        Map.entry("ibv_cq_ex.read_src_qp", "CqIntFn"),
        Map.entry("ibv_cq_ex.read_flow_tag", "CqIntFn"),
        Map.entry("ibv_cq_ex.read_opcode", "CqIntFn"),
        Map.entry("ibv_cq_ex.read_completion_ts", "CqLongFn"),
        Map.entry("ibv_cq_ex.read_completion_wallclock_ns", "CqLongFn"),
        Map.entry("ibv_cq_ex.read_cvlan", "CqShortFn"),
        Map.entry("ibv_cq_ex.read_sl", "CqByteFn"),
        Map.entry("ibv_qp_ex.wr_start", "WrVoidFn"),
        Map.entry("ibv_qp_ex.wr_abort", "WrVoidFn"),
        Map.entry("ibv_qp_ex.wr_send", "WrVoidFn"),
        Map.entry("ibv_qp_ex.wr_complete", "WrIntFn"),
        Map.entry("ibv_qp_ex.wr_send_imm", "WrIFn"),
        Map.entry("ibv_qp_ex.wr_send_inv", "WrIFn"),
        Map.entry("ibv_qp_ex.wr_local_inv", "WrIFn"),
        Map.entry("ibv_qp_ex.wr_rdma_write", "WrILFn"),
        Map.entry("ibv_qp_ex.wr_rdma_read", "WrILFn"),
        Map.entry("ibv_qp_ex.wr_rdma_write_imm", "WrILIFn"),
        Map.entry("ibv_qp_ex.wr_set_sge", "WrILIFn"),
        Map.entry("ibv_qp_ex.wr_atomic_fetch_add", "WrILLFn"),
        Map.entry("ibv_qp_ex.wr_atomic_cmp_swp", "WrILLLFn"),
        Map.entry("ibv_qp_ex.wr_set_inline_data", "WrPLFn"),
        Map.entry("ibv_qp_ex.wr_set_sge_list", "WrLPFn"),
        Map.entry("ibv_qp_ex.wr_set_inline_data_list", "WrLPFn"),
        Map.entry("ibv_qp_ex.wr_set_ud_addr", "WrPIIFn"));

    private static DwarfStructs functions;
    private static DwarfStructs structs;

    @BeforeAll
    static void probe() throws Exception
    {
        Files.createDirectories(Path.of("target"));
        run(List.of("gcc", "-std=gnu11", "-g", "-Wall", "-Wextra", "-Werror", "-c", "-o", "target/function_probe.o",
            "src/test/c/function_probe.c"));
        functions = new DwarfStructs(run(List.of("readelf", "--debug-dump=info", "target/function_probe.o")));
        run(List.of("gcc", "-std=gnu11", "-g", "-Wall", "-Wextra", "-Werror", "-c", "-o", "target/layout_probe.o",
            "src/test/c/layout_probe.c"));
        structs = new DwarfStructs(run(List.of("readelf", "--debug-dump=info", "target/layout_probe.o")));
    }

    @Test
    void exportedFunctionDescriptorsMatchThePrototypes() throws ReflectiveOperationException
    {
        final List<String> problems = new ArrayList<>();
        int checked = 0;
        for (final Class<?> type : List.of(Verbs.class, Mlx5dv.class, Libc.class))
        {
            for (final Method method : type.getDeclaredMethods())
            {
                if (!Modifier.isPublic(method.getModifiers()))
                {
                    continue;
                }
                final String name = method.getName();
                if (type == Mlx5dv.class && name.equals("mlx5dv_wr_set_dc_addr"))
                {
                    continue;   // a static inline of mlx5dv.h calling a member: checked as such in the test below
                }
                final DwarfStructs.Die c = functions.function(name);
                if (c == null)
                {
                    problems.add(name + ": not declared in the installed headers (or missing from function_probe.c)");
                    continue;
                }
                final List<String> java = abi(descriptor(type.getName() + "$" + name + "$", "DESC"));
                final List<String> cSig = functions.signature(c);
                if (!cSig.equals(java))
                {
                    problems.add(name + ": C " + cSig + ", Java " + java);
                }
                checked++;
            }
        }
        if (!problems.isEmpty())
        {
            fail(String.join("\n", problems));
        }
        assertEquals(45, checked);
    }

    @Test
    void providerFunctionPointerDescriptorsMatchTheMemberTypes() throws ReflectiveOperationException
    {
        final List<String> problems = new ArrayList<>();
        final Map<String, String> holders = new java.util.LinkedHashMap<>();
        for (final Map.Entry<String, String> e : POINTERS.entrySet())
        {
            holders.put(e.getKey(), InlineVerbs.class.getName() + "$" + e.getValue() + "#FD");
        }
        // mlx5dv.h's static inline mlx5dv_wr_set_dc_addr calls this member of struct mlx5dv_qp_ex
        holders.put("mlx5dv_qp_ex.wr_set_dc_addr", Mlx5dv.class.getName() + "$WrSetDcAddrFn#DESC");
        for (final Map.Entry<String, String> e : holders.entrySet())
        {
            final String[] at = e.getKey().split("\\.");
            final DwarfStructs.Die struct = structs.struct(at[0]);
            assertTrue(struct != null, at[0] + " not in the layout probe's DWARF");
            DwarfStructs.Die member = null;
            for (final DwarfStructs.Die m : DwarfStructs.members(struct))
            {
                if (at[1].equals(m.name))
                {
                    member = m;
                }
            }
            final DwarfStructs.Die fn = member == null ? null : structs.pointedFunction(member);
            if (fn == null)
            {
                problems.add(e.getKey() + ": not a function pointer member in C");
                continue;
            }
            final String[] holder = e.getValue().split("#");
            final List<String> java = abi(descriptor(holder[0], holder[1]));
            final List<String> cSig = structs.signature(fn);
            if (!cSig.equals(java))
            {
                problems.add(e.getKey() + " (" + e.getValue() + "): C " + cSig + ", Java " + java);
            }
        }
        if (!problems.isEmpty())
        {
            fail(String.join("\n", problems));
        }
    }

    private static FunctionDescriptor descriptor(final String holder, final String field)
        throws ReflectiveOperationException
    {
        final Field f = Class.forName(holder).getDeclaredField(field);
        f.setAccessible(true);
        return (FunctionDescriptor) f.get(null);
    }

    private static List<String> abi(final FunctionDescriptor fd)
    {
        final List<String> sig = new ArrayList<>();
        sig.add(fd.returnLayout().map(DowncallSignatureTest::abiClass).orElse("void"));
        for (final MemoryLayout arg : fd.argumentLayouts())
        {
            sig.add(abiClass(arg));
        }
        return sig;
    }

    private static String abiClass(final MemoryLayout layout)
    {
        if (layout instanceof AddressLayout)
        {
            return "ptr";
        }
        if (layout instanceof ValueLayout.OfBoolean)
        {
            return "bool";
        }
        return "int" + layout.byteSize() * 8;
    }

    private static String run(final List<String> command) throws Exception
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
