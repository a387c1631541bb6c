// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.testkit.ExpectedWqe;
import io.mlx5j.testkit.Libmlx5Oracle;
import io.mlx5j.testkit.QpKind;
import io.mlx5j.testkit.WorkRequest;
import io.mlx5j.testkit.WqeAssertions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The oracle's producer index on a device that executes WQEs (the default execution: engine on), where the fillers
 * are completed by the device rather than by CQEs the oracle writes: a WQE that wraps the ring end is libmlx5's WQE
 * at WQEBB 0 with its wqe_index, byte for byte.
 */
class OracleLiveDeviceTest
{
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"RC, POST_SEND", "RC, WR", "UC, POST_SEND", "UD, POST_SEND", "UD, WR"})
    @Timeout(120)
    void aWrappingWqeIsTheSameWqeAtItsIndex(final QpKind kind, final Libmlx5Oracle.Api api)
    {
        try (Libmlx5Oracle oracle = Libmlx5Oracle.open(kind, api, 8, 4, 0))
        {
            final WorkRequest wr = WorkRequest.send().flags(WorkRequest.IBV_SEND_SIGNALED).ud(0x123, 0x11111111)
                .sge(oracle.memory().address(), 64, oracle.lkey())
                .sge(oracle.memory().address() + 64, 64, oracle.lkey())
                .sge(oracle.memory().address() + 128, 64, oracle.lkey())
                .sge(oracle.memory().address() + 192, 64, oracle.lkey());
            final int wqebbs = oracle.sendRingWqebbs();
            final ExpectedWqe atZero = oracle.expect(wr);
            assertTrue(atZero.bytes().length > 64, "the WQE takes more than one WQEBB: " + atZero.bytes().length);
            for (final int pi : new int[] {wqebbs - 1, 2 * wqebbs - 1})
            {
                final ExpectedWqe wrapped = oracle.expect(pi, wr).get(0);
                assertEquals(pi, wrapped.wqeIndex());
                WqeAssertions.assertWqe(atZero.withQpn(wrapped.qpn()).withWqeIndex(pi), wrapped.bytes());
            }
        }
    }
}
