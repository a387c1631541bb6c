// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.validate;

import io.mlx5j.tool.Mlx5jTool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code mlx5j validate} on the emulated device of every profile (MLX5EMU_PROFILE, a JVM each: a process answers as
 * one device for its life): the exact capabilities of the generation, every opcode's check passing, the error
 * completion, the timestamp check; and a faked rdma-core release that must be refused or warned about.
 */
class ValidateCommandTest
{
    record Run(int status, String out, String json)
    {
    }

    private static Run validate(final String name, final Map<String, String> env) throws Exception
    {
        final Path dir = Path.of("target", "validate");
        Files.createDirectories(dir);
        final Path json = dir.resolve(name + ".json");
        final Path log = dir.resolve(name + ".out");
        Files.deleteIfExists(json);
        final String java = ProcessHandle.current().info().command().orElseThrow();
        final ProcessBuilder pb = new ProcessBuilder(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp",
            System.getProperty("java.class.path"), Mlx5jTool.class.getName(), "validate", "--json", json.toString()))
            .redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(env);
        final Process p = pb.start();
        if (!p.waitFor(90, TimeUnit.SECONDS))
        {
            p.destroyForcibly();
            throw new AssertionError("validate did not finish within 90 s: " + Files.readString(log));
        }
        final String out = Files.readString(log, StandardCharsets.UTF_8);
        return new Run(p.exitValue(), out, Files.exists(json) ? Files.readString(json) : "");
    }

    @ParameterizedTest
    @CsvSource({
        "cx4lx, 4117, ConnectX-4 Lx, 14.32.1010, false, 0x3",
        "cx5,   4119, ConnectX-5,    16.35.2000, false, 0x7",
        "cx6dx, 4125, ConnectX-6 Dx, 22.35.2000, true,  0x7",
        "cx7,   4129, ConnectX-7,    28.35.2000, true,  0x7"})
    @Timeout(120)
    void everyProfilePassesWithItsOwnCapabilities(final String profile, final int part, final String model,
        final String fw, final boolean realTime, final String compression) throws Exception
    {
        final Run r = validate(profile, Map.of("MLX5EMU_PROFILE", profile));
        assertEquals(0, r.status(), r.out());
        // the header names the profile's generation, not always the default's
        assertEquals("mlx5j validate (emulated " + model + " through emulator/mlx5emu; no RDMA hardware in use)",
            r.out().lines().findFirst().orElse(""), r.out());
        final String j = r.json();
        assertTrue(j.contains("\"verdict\": \"PASS\""), j);
        assertTrue(j.contains("\"vendor_part_id\": " + part + ","), j);
        assertTrue(j.contains("\"model\": \"" + model + "\""), j);
        assertTrue(j.contains("\"firmware\": \"" + fw + "\""), j);
        assertTrue(j.contains("\"cqe_version\": 1,"), j);
        assertTrue(j.contains("\"real-time timestamps\": " + realTime + ","), j);
        assertTrue(j.contains("\"hca_core_clock (kHz)\": 156250,"), j);
        assertTrue(j.contains("\"cqe compression formats\": \"" + compression + "\""), j);
        assertTrue(j.contains("\"rdma-core release\": 44,"), j);
        for (final String op : List.of("SEND", "SEND_IMM", "WRITE", "WRITE_IMM", "READ"))
        {
            assertTrue(j.contains("{\"name\": \"" + op + "\", \"verdict\": \"PASS\", "
                + "\"detail\": \"256 bytes verified\"}"),
                op + " in " + j);
        }
        assertTrue(j.contains("{\"name\": \"CMP_SWAP\", \"verdict\": \"PASS\", \"detail\": \"returned 100 (want 100), "
            + "word now 200 (want 200)\"}"), j);
        assertTrue(j.contains("{\"name\": \"FETCH_ADD\", \"verdict\": \"PASS\", \"detail\": \"returned 200 (want 200), "
            + "word now 205 (want 205)\"}"), j);
        assertTrue(j.contains("{\"name\": \"error completion (WRITE with a wrong rkey)\", \"verdict\": \"PASS\", "
            + "\"detail\": \"status REM_ACCESS_ERR, syndrome 0x13\"}"), j);
        assertTrue(j.contains("{\"name\": \"NIC timestamp vs CLOCK_REALTIME\", \"verdict\": \"PASS\""), j);
        assertTrue(j.contains("{\"name\": \"WQE encoder self-check\", \"verdict\": \"PASS\""), j);
        assertTrue(r.out().contains("validate: PASS ("), r.out());
    }

    @Test
    @Timeout(120)
    void anOlderRdmaCoreIsRefused() throws Exception
    {
        final Run r = validate("rdma-core-40", Map.of(RdmaCoreVersion.ASSUME_ENV, "40"));
        assertEquals(1, r.status(), r.out());
        assertTrue(r.out().contains("FAIL rdma-core release: release 40 is not supported: mlx5j needs rdma-core 44 "
            + "or newer"), r.out());
        assertTrue(r.out().contains("validate: FAIL ("), r.out());
        assertTrue(r.json().contains("\"verdict\": \"FAIL\""), r.json());
    }

    @Test
    @Timeout(120)
    void aNewerRdmaCoreIsAWarningNamingIt() throws Exception
    {
        final Run r = validate("rdma-core-50", Map.of(RdmaCoreVersion.ASSUME_ENV, "50"));
        assertEquals(0, r.status(), r.out());
        assertTrue(r.out().contains("WARN rdma-core release: 50 is not one of the verified releases 44 and 65: "
            + "compatible"), r.out());
    }

    @Test
    @Timeout(240)
    void bothVerifiedReleasesPass() throws Exception
    {
        for (final int release : new int[] {44, 65})
        {
            final Run r = validate("rdma-core-" + release, Map.of(RdmaCoreVersion.ASSUME_ENV, "" + release));
            assertEquals(0, r.status(), r.out());
            assertTrue(r.out().contains("PASS rdma-core release: " + release + " (a release mlx5j is verified with: "
                + "44 and 65)"), r.out());
        }
    }

    @Test
    void releaseIsReadFromTheLibraryFileName()
    {
        assertEquals(44, RdmaCoreVersion.release("/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0"));
        assertEquals(58, RdmaCoreVersion.release("/opt/rdma-core/lib/libmlx5.so.1.25.58.0"));
        assertEquals(-1, RdmaCoreVersion.release("/usr/lib/libibverbs.so.1"));
        assertEquals(-1, RdmaCoreVersion.release(null));
    }
}
