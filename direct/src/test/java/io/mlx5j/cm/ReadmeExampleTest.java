// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The rdma_cm guide's example (docs/rdma-cm.md) is the code of {@link ReadmeExample}, and it runs. */
class ReadmeExampleTest
{
    @Test
    void theGuideShowsTheExampleVerbatim() throws Exception
    {
        final List<String> source = Files.readAllLines(Path.of("src/test/java/io/mlx5j/cm/ReadmeExample.java"));
        final int begin = source.indexOf("    // guide:begin");
        final int end = source.indexOf("    // guide:end");
        assertTrue(begin > 0 && end > begin, "markers missing");
        final List<String> example = source.subList(begin + 1, end).stream()
            .map(l -> l.startsWith("    ") ? l.substring(4) : l).toList();
        final String guide = Files.readString(Path.of("../docs/rdma-cm.md"));
        assertTrue(guide.contains("```java\n" + String.join("\n", example) + "\n```"),
            "docs/rdma-cm.md does not show ReadmeExample's code verbatim in a ```java block");
    }

    @Test
    void theExampleConnectsAndReportsRejects() throws Exception
    {
        final Leaks leaks = new Leaks();
        final int port = CmConnectionTest.freePort();
        final CompletableFuture<String> server = CompletableFuture.supplyAsync(() -> ReadmeExample.serve(port));
        String reply;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        do
        {
            reply = ReadmeExample.connect(port);   // "rejected 8" until the server thread listens
        }
        while (reply.equals("rejected 8") && System.nanoTime() < deadline);
        assertTrue(reply.matches("welcome \\d+"), reply);
        assertEquals("hello", server.get(30, TimeUnit.SECONDS));
        assertEquals("rejected 8", ReadmeExample.connect(CmConnectionTest.freePort()));
        leaks.assertNone();
    }
}
