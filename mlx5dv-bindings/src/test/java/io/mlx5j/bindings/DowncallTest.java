// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.bindings;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import static io.mlx5j.bindings.CTypes.C_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Downcalls that need no device: every bound symbol exists and links, and a few pure user-space calls work. */
class DowncallTest
{
    @Test
    void everyBoundFunctionIsExportedByItsLibrary()
    {
        final List<String> names = new ArrayList<>();
        for (final Class<?> type : List.of(Verbs.class, Mlx5dv.class))
        {
            for (final Method method : type.getDeclaredMethods())
            {
                // mlx5dv_wr_set_dc_addr is a static inline of mlx5dv.h that calls a member of struct mlx5dv_qp_ex, not
                // a symbol: DowncallSignatureTest checks it against that member's type
                if (Modifier.isPublic(method.getModifiers()) && !method.getName().equals("mlx5dv_wr_set_dc_addr"))
                {
                    names.add(method.getName());
                    final MemorySegment address = type == Verbs.class ?
                        NativeLibs.ibverbs(method.getName()) : NativeLibs.mlx5(method.getName());
                    assertNotEquals(0, address.address(), method.getName());
                }
            }
        }
        assertTrue(names.contains("ibv_reg_mr_iova2") && names.contains("mlx5dv_init_obj"), names.toString());
        assertEquals(44, names.size(), names.toString());
    }

    @Test
    void wcStatusStringsComeFromLibibverbs()
    {
        assertEquals("success", Verbs.ibv_wc_status_str(0).reinterpret(64).getString(0));
        assertEquals("transport retry counter exceeded", Verbs.ibv_wc_status_str(12).reinterpret(64).getString(0));
    }

    @Test
    void deviceListCallReturnsAListOrAnErrno()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment count = arena.allocate(C_INT);
            count.set(C_INT, 0, -1);
            final MemorySegment list = Verbs.ibv_get_device_list(state, count);
            if (list.address() == 0)
            {
                assertNotEquals(0, CallState.errno(state), "NULL without errno");
            }
            else
            {
                final int n = count.get(C_INT, 0);
                assertTrue(n >= 0, "count " + n);
                // NULL-terminated: entry n is NULL
                assertEquals(0, list.reinterpret((n + 1) * 8L).get(CTypes.C_POINTER, n * 8L).address());
                Verbs.ibv_free_device_list(list);
            }
        }
    }
}
