// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The JUnit 5 side of {@link EmulatedConnectX}. Before each test it checks that the emulator is preloaded and that
 * the emulated host is the one the annotation asks for (link layer, device count, strict mode), else fails with the
 * surefire configuration to add; it resolves a {@link Device} parameter; and with strict mode it fails a test during
 * which the engine counted a driver-rule violation, quoting the emulator's report of it.
 * <p>
 * Why a check rather than a forked JVM: {@code LD_PRELOAD} works only from the start of a process, and surefire
 * already forks one test JVM per module; putting the emulator there with two environment variables (the launcher's
 * {@code --env} output, docs/emulator-artifact.md) keeps the tests in the ordinary JUnit run, debuggable and reported
 * as usual, where a forking extension would hide them in a child process.
 * <p>
 * The emulator prints its strict reports on the process's standard error; the extension points file descriptor 2
 * at a file for the duration of each strict test (dup2), then copies what came there back to the real stderr, so the
 * report can be quoted in the failure and is still where it always was.
 *
 * <p>Thread model: JUnit calls the callbacks on the thread that runs the test.
 */
public final class EmulatedConnectXExtension implements BeforeEachCallback, AfterEachCallback, ParameterResolver
{
    /**
     * The emulated host a test got.
     *
     * @param link    "ib" or "eth"
     * @param devices how many devices
     * @param strict  whether strict mode is on
     * @param fabric  the emulated fabric's name (MLX5EMU_FABRIC), or "" for the default one
     */
    public record Device(String link, int devices, boolean strict, String fabric)
    {
        /**
         * The name of device {@code i} ({@code mlx5_0}, ...).
         *
         * @param i the device index, from 0
         * @return the device name
         */
        public String name(final int i)
        {
            return "mlx5_" + i;
        }
    }

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(EmulatedConnectX.class);

    /** Created by JUnit for {@link EmulatedConnectX}; keeps no state of its own between callbacks. */
    public EmulatedConnectXExtension()
    {
    }

    /**
     * The surefire block that preloads the emulator (the launcher's --env output), for the failure messages.
     *
     * @param want the annotation of the test
     * @return the configuration text
     */
    public static String surefireBlock(final EmulatedConnectX want)
    {
        return String.join("\n",
            "add to the test module's pom.xml (docs/testkit.md; the exec-maven-plugin execution runs the emulator's",
            "launcher with --env ${project.build.directory}/mlx5emu" + ("eth".equals(want.link()) ? " --link eth" : "")
                + (want.devices() != 1 ? " --devices " + want.devices() : "") + " in process-test-classes):",
            "  <plugin>",
            "    <groupId>org.apache.maven.plugins</groupId>",
            "    <artifactId>maven-surefire-plugin</artifactId>",
            "    <configuration>",
            "      <argLine>--enable-native-access=ALL-UNNAMED</argLine>",
            "      <environmentVariables>",
            "        <SYSFS_PATH>${project.build.directory}/mlx5emu</SYSFS_PATH>",
            "        <LD_PRELOAD>${project.build.directory}/mlx5emu/libmlx5emu.so</LD_PRELOAD>",
            want.strict() ? "        <MLX5EMU_STRICT>1</MLX5EMU_STRICT>" : "",
            "      </environmentVariables>",
            "    </configuration>",
            "  </plugin>").replace("\n\n", "\n");
    }

    @Override
    public void beforeEach(final ExtensionContext context)
    {
        final EmulatedConnectX want = annotation(context);
        requireDevice(want);
        if (want.strict())
        {
            final ExtensionContext.Store store = context.getStore(NS);
            store.put("violations", EmulatedDevice.strictViolations());
            store.put("capture", StderrCapture.start());
        }
    }

    /** Fails unless this JVM runs on the emulated host {@code want} describes. */
    static void requireDevice(final EmulatedConnectX want)
    {
        if (!EmulatedDevice.isLoaded())
        {
            throw new ExtensionConfigurationException("this test runs on the emulated ConnectX, but the emulator is "
                + "not preloaded in this JVM (LD_PRELOAD=" + System.getenv("LD_PRELOAD") + ");\n"
                + surefireBlock(want));
        }
        final Device have = device();
        if (!have.link().equals(want.link()) || have.devices() != want.devices() || have.strict() != want.strict())
        {
            throw new ExtensionConfigurationException("this test asks for link " + want.link() + ", " + want.devices()
                + " device(s), strict " + want.strict() + "; this JVM's emulated host has link " + have.link() + ", "
                + have.devices() + " device(s), strict " + have.strict() + " (fixed when the JVM started: run this "
                + "test in a surefire execution of its own);\n" + surefireBlock(want));
        }
    }

    @Override
    public void afterEach(final ExtensionContext context)
    {
        final ExtensionContext.Store store = context.getStore(NS);
        final StderrCapture capture = store.remove("capture", StderrCapture.class);
        if (capture == null)
        {
            return;
        }
        final String stderr = capture.stop();
        final long before = store.remove("violations", Long.class);
        final long after = EmulatedDevice.strictViolations();
        if (after != before)
        {
            final List<String> reports = EmulatedDevice.strictReports(stderr);
            throw new AssertionError("strict mode: " + (after - before) + " driver-rule violation(s) during this test"
                + (reports.isEmpty() ? " (the engine's report is on stderr)" : ":\n" + String.join("\n", reports)));
        }
    }

    @Override
    public boolean supportsParameter(final ParameterContext parameter, final ExtensionContext context)
    {
        return parameter.getParameter().getType() == Device.class;
    }

    @Override
    public Object resolveParameter(final ParameterContext parameter, final ExtensionContext context)
    {
        return device();
    }

    /** The emulated host of this JVM, as its environment and sysfs tree describe it. */
    static Device device()
    {
        final String sysfs = System.getenv("SYSFS_PATH");
        String link = System.getenv("MLX5EMU_LINK");
        int devices = envInt("MLX5EMU_DEVICES", -1);
        if (sysfs != null)
        {
            final Path ib = Path.of(sysfs, "class", "infiniband");
            try (var list = Files.list(ib))
            {
                final List<Path> names = list.toList();
                if (devices < 0)
                {
                    devices = names.size();
                }
                if (link == null && !names.isEmpty())
                {
                    final Path layer = names.get(0).resolve("ports/1/link_layer");
                    link = Files.readString(layer).trim().equalsIgnoreCase("Ethernet") ? "eth" : "ib";
                }
            }
            catch (final IOException ex)
            {
                if (devices < 0)
                {
                    throw new UncheckedIOException("cannot read the emulated sysfs tree " + ib, ex);
                }
            }
        }
        final String fabric = System.getenv("MLX5EMU_FABRIC");
        return new Device(link == null ? "ib" : link.startsWith("eth") ? "eth" : "ib", devices < 0 ? 1 : devices,
            EmulatedDevice.strictMode(), fabric == null ? "" : fabric);
    }

    private static int envInt(final String name, final int otherwise)
    {
        final String v = System.getenv(name);
        return v == null || v.isBlank() ? otherwise : Integer.parseInt(v.trim());
    }

    private static EmulatedConnectX annotation(final ExtensionContext context)
    {
        return context.getTestMethod().map(m -> m.getAnnotation(EmulatedConnectX.class))
            .or(() -> context.getTestClass().map(c -> c.getAnnotation(EmulatedConnectX.class)))
            .orElseThrow(() -> new ExtensionConfigurationException("use @EmulatedConnectX, not @ExtendWith alone"));
    }
}
