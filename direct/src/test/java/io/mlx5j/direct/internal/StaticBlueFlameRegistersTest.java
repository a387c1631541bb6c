// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** libmlx5's static register numbering and lock rule (rdma-core v44 providers/mlx5/mlx5.c), case by case. */
class StaticBlueFlameRegistersTest
{
    private static final long PAGE = 4096;
    private static final long UAR = 0x7f00_1234_5000L; // any page-aligned mapping address

    @Test
    void registerNumbersFromTheMmapOffsetAndTheAddress()
    {
        // UAR page i at mmap offset i * page (cmd 0); registers at 0x800 and 0xa00 (bf.size 256, bf_reg_size 512)
        assertEquals(0, StaticBlueFlameRegisters.registerNumber(0, UAR + 0x800, 0, PAGE), "register 0, no buffer");
        assertEquals(1, StaticBlueFlameRegisters.registerNumber(0, UAR + 0xa00, 256, PAGE));
        assertEquals(14, StaticBlueFlameRegisters.registerNumber(7 * PAGE, UAR + 0x800, 256, PAGE));
        assertEquals(15, StaticBlueFlameRegisters.registerNumber(7 * PAGE, UAR + 0xa00, 256, PAGE));
        // MLX5_SHUT_UP_BF maps non-cached pages: cmd 3
        assertEquals(5, StaticBlueFlameRegisters.registerNumber(((3 << 8) | 2) * PAGE, UAR + 0xa00, 256, PAGE));
        // outside the scheme: not reported, a thread domain's page (cmd 6), a UAR object (from 9 << 16), fast-path
        // slots, an offset that is not a page multiple
        assertEquals(-1, StaticBlueFlameRegisters.registerNumber(-1, UAR + 0x800, 256, PAGE));
        assertEquals(-1, StaticBlueFlameRegisters.registerNumber((6 << 8) * PAGE, UAR + 0x800, 256, PAGE));
        assertEquals(-1, StaticBlueFlameRegisters.registerNumber((9L << 16) * PAGE, UAR + 0x800, 256, PAGE));
        assertEquals(-1, StaticBlueFlameRegisters.registerNumber(PAGE, UAR + 0xc00, 256, PAGE));
        assertEquals(-1, StaticBlueFlameRegisters.registerNumber(100, UAR + 0x800, 256, PAGE));
    }

    @Test
    void countsFollowTheEnvironmentAsLibmlx5ReadsIt()
    {
        assertEquals(16, StaticBlueFlameRegisters.total(null, PAGE));
        assertEquals(4, StaticBlueFlameRegisters.lowLatency(null, 16));
        assertEquals(34, StaticBlueFlameRegisters.total("33", PAGE), "rounded up to whole UARs");
        assertEquals(2, StaticBlueFlameRegisters.total("1", PAGE));
        assertEquals(-1, StaticBlueFlameRegisters.total("0", PAGE));
        assertEquals(-1, StaticBlueFlameRegisters.total("1000", PAGE), "more than MLX5_MAX_BFREGS");
        assertEquals(20, StaticBlueFlameRegisters.lowLatency("2", 32), "at most 12 medium registers");
        assertEquals(7, StaticBlueFlameRegisters.lowLatency("7abc", 16), "atoi stops at the first non-digit");
        assertEquals(-1, StaticBlueFlameRegisters.lowLatency("-3", 16));
    }

    @Test
    void onlyLowLatencyRegistersAreDedicated()
    {
        assertFalse(StaticBlueFlameRegisters.dedicated(0, 16, 4), "register 0");
        assertFalse(StaticBlueFlameRegisters.dedicated(11, 16, 4), "the last medium register");
        assertTrue(StaticBlueFlameRegisters.dedicated(12, 16, 4));
        assertTrue(StaticBlueFlameRegisters.dedicated(15, 16, 4));
        assertFalse(StaticBlueFlameRegisters.dedicated(16, 16, 4), "past the end");
        assertFalse(StaticBlueFlameRegisters.dedicated(15, 16, -1), "unknown counts: lock");
    }
}
