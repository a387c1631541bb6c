// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tests;

import io.mlx5j.direct.Completion;
import io.mlx5j.direct.CqPoller;
import io.mlx5j.direct.SendFlags;
import io.mlx5j.direct.SendQueue;
import io.mlx5j.doorbell.DoorbellMode;
import io.mlx5j.testkit.EmulatedConnectX;
import io.mlx5j.verbs.CompletionQueue;
import io.mlx5j.verbs.MemoryRegion;
import io.mlx5j.verbs.QpConfig;
import io.mlx5j.verbs.QpType;
import io.mlx5j.verbs.QueuePair;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.lang.foreign.ValueLayout;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * The strict-mode path of {@code @EmulatedConnectX}: a test whose WQE breaks a driver rule fails, and the failure
 * quotes the emulator's report naming the QP, the WQE index and the rule. The failing test ({@link Violating}) is run
 * inside this one through the JUnit Platform launcher, so that its failure is observed rather than suffered; on its
 * own (surefire does not pick a nested class) it skips.
 */
class EmulatedConnectXStrictTest
{
    private static final String LAUNCHED = "mlx5j.test.strictViolationLaunched";
    /** The QP {@link Violating} posted on. */
    static volatile int violatingQpn = -1;
    /**
     * mlx5dv.h MLX5_OPCODE_TSO: an opcode of raw packet QPs only, so on an RC QP it breaks the rule the engine states
     * as "opcode invalid for the QP type". The opcode byte is chosen because nothing else reads it: a wrong wqe_index
     * or QP number would also reach the doorbell (the first 8 bytes of ctrl) and be a second violation there.
     */
    static final int MLX5_OPCODE_TSO = 0x0e;

    @Test
    @Timeout(60)
    void aStrictViolationFailsTheTestNamingQpWqeAndRule()
    {
        final SummaryGeneratingListener listener = new SummaryGeneratingListener();
        final LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
            .selectors(selectClass(Violating.class)).build();
        final Launcher launcher = LauncherFactory.create();
        System.setProperty(LAUNCHED, "true");
        try
        {
            launcher.execute(request, listener);
        }
        finally
        {
            System.clearProperty(LAUNCHED);
        }
        final TestExecutionSummary summary = listener.getSummary();
        assertEquals(1, summary.getTestsStartedCount(), "the violating test ran");
        assertEquals(1, summary.getTestsFailedCount(), "and failed");
        final List<TestExecutionSummary.Failure> failures = summary.getFailures();
        final Throwable t = failures.get(0).getException();
        assertInstanceOf(AssertionError.class, t);
        final String[] lines = t.getMessage().split("\n");
        assertEquals("strict mode: 1 driver-rule violation(s) during this test:", lines[0], t.getMessage());
        assertEquals(2, lines.length, t.getMessage());
        // the engine's report: mlx5emu[PID] STRICT: QP 0x<qpn> WQE <index>: <rule>
        assertEquals(String.format("mlx5emu[%d] STRICT: QP 0x%06x WQE 0: opcode invalid for the QP type",
            ProcessHandle.current().pid(), violatingQpn), lines[1]);
    }

    /** Posts an RDMA WRITE whose ctrl segment names TSO as its opcode, and waits for the device to fail it. */
    @EmulatedConnectX(link = "ib", devices = 1, strict = true)
    static class Violating
    {
        @Test
        void postsAWqeWithAnOpcodeRcDoesNotTake()
        {
            Assumptions.assumeTrue(Boolean.getBoolean(LAUNCHED), "run by EmulatedConnectXStrictTest only");
            try (Rig rig = new Rig())
            {
                final CompletionQueue cq = rig.cq(16);
                final QueuePair qp = rig.pd.createQp(QpConfig.builder(QpType.RC, cq).build());
                rig.connect(qp, qp);
                violatingQpn = qp.qpn();
                final MemoryRegion mr = rig.memory(4096);
                // the plain doorbell: a BlueFlame copy would differ from the edited ring, a violation of its own
                final SendQueue sq = SendQueue.of(qp, DoorbellMode.DOORBELL);
                final CqPoller poller = CqPoller.of(cq).attach(sq);
                assertTrue(sq.rdmaWrite(1, mr.address(), mr.lkey(), 64, mr.address() + 2048, mr.rkey(),
                    SendFlags.SIGNALED));
                // opmod_idx_opcode byte 3: the opcode; the WQE sits at WQEBB 0
                qp.rings().sq().set(ValueLayout.JAVA_BYTE, 3, (byte)MLX5_OPCODE_TSO);
                sq.ring();
                Rig.await(poller, new Completion());
            }
        }
    }
}
