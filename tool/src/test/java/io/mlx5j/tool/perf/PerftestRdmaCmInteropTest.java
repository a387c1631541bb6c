// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.perf;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

/**
 * {@code mlx5j perf -R} against the unmodified perftest 4.5 programs with {@code -R}: the exchanges over an rdma_cm
 * control connection, the test QP connected by the CM; all eight tests, each in both roles, over InfiniBand and
 * RoCE. Runs in the rdma-cm surefire executions (librdmacm keeps a device context open for the JVM's life).
 */
class PerftestRdmaCmInteropTest
{
    @ParameterizedTest(name = "-R {0} {1}, mlx5j server {2}")
    @CsvSource({
        "write_lat, -R -s 2 -n 100, true",
        "write_lat, -R -s 1024 -n 100 -I 0, false",
        "send_lat,  -R -s 64 -n 100, true",
        "send_lat,  -R -s 64 -n 100, false",
        "read_lat,  -R -s 32 -n 100, true",
        "read_lat,  -R -s 32 -n 100, false",
        "atomic_lat, -R -n 100, true",
        "atomic_lat, -R -n 100, false",
        "write_bw,  -R -s 65536 -n 100, true",
        "write_bw,  -R -s 64 -n 200, false",
        "send_bw,   -R -s 4096 -n 100, true",
        "send_bw,   -R -s 4096 -n 100, false",
        "read_bw,   -R -s 16384 -n 100, true",
        "read_bw,   -R -s 8 -n 200, false",
        "atomic_bw, -R -n 200, true",
        "atomic_bw, -R -n 200, false",
    })
    void againstPerftest(final String test, final String args, final boolean javaServer) throws Exception
    {
        PerftestInterop.run(test, javaServer, List.of(args.trim().split(" +")));
    }

    /**
     * PerftestInteropTest#writeLatPeerOutlivesOurDuration over rdma_cm: the perftest side's end is its DISCONNECTED
     * on the data connection (its client disconnects and waits for ours; its server disconnects and exits).
     */
    @ParameterizedTest(name = "-R write_lat -D, mlx5j ends first, mlx5j server {0}")
    @CsvSource({"false", "true"})
    void writeLatPeerOutlivesOurDuration(final boolean javaServer) throws Exception
    {
        PerftestInterop.run("write_lat", javaServer, List.of("env", "MLX5EMU_FAULTS=delay=1:50ms,dir=req"),
            List.of("-R", "-D", "3"), List.of("-R", "-D", "1"));
    }

    @Tag("roce")
    @ParameterizedTest(name = "RoCE -R {0} {1}, mlx5j server {2}")
    @CsvSource({
        "write_lat, -R -s 2 -n 100, true",
        "write_lat, -R -s 2 -n 100, false",
        "send_bw,   -R -s 1024 -n 100, true",
        "send_bw,   -R -s 1024 -n 100, false",
        "read_lat,  -R -s 64 -n 100, true",
        "read_lat,  -R -s 64 -n 100, false",
        "atomic_bw, -R -n 100, true",
        "atomic_bw, -R -n 100, false",
    })
    void againstPerftestOverRoce(final String test, final String args, final boolean javaServer) throws Exception
    {
        PerftestInterop.run(test, javaServer, List.of(args.trim().split(" +")));
    }
}
