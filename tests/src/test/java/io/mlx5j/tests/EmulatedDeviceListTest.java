package io.mlx5j.tests;

import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.DeviceList;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 3 acceptance: from the JVM, under the launcher, ibv_get_device_list through FFM lists the emulated device.
 * Checked twice: a child JVM started as {@code emulator/mlx5emu -- java ...} with the emulator variables removed
 * from its inherited environment (so only the launcher can have set them), and this surefire JVM, whose
 * environment must equal what {@code mlx5emu --env} prints.
 */
class EmulatedDeviceListTest
{
    @Test
    void childJvmUnderTheLauncherListsTheEmulatedDevice() throws Exception
    {
        final String launcher = System.getProperty("mlx5emu.launcher");
        assertNotNull(launcher, "system property mlx5emu.launcher not set (run through Maven)");
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final List<String> command = new ArrayList<>(List.of(launcher, "--devices", "2", "--fabric", "mlx5j-e2e-child",
            "--", java, "--enable-native-access=ALL-UNNAMED", "--illegal-native-access=deny",
            "-cp", System.getProperty("java.class.path"), ListDevices.class.getName()));
        final ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().keySet()
            .removeIf(k -> k.equals("LD_PRELOAD") || k.equals("SYSFS_PATH") || k.startsWith("MLX5EMU_"));
        final Process process = pb.start();
        final String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "child JVM hung: " + out);
        assertEquals(0, process.exitValue(), out);
        // mlx5emu writes node GUIDs 9803:9b03:004d:45<index> for --devices 2
        assertEquals(List.of("count=2", "device=mlx5_0 guid=98039b03004d4500", "device=mlx5_1 guid=98039b03004d4501"),
            out.lines().toList(), out);
    }

    @Test
    void thisJvmSeesTheEmulatedDeviceThroughTheDirectApi() throws IOException
    {
        // KEY=VALUE lines only: the file also holds the output of building the emulator library, if that happened
        final List<String> env = Files.readAllLines(Path.of(System.getProperty("mlx5emu.env"))).stream()
            .filter(l -> l.matches("[A-Z][A-Z0-9_]*=.*")).toList();
        assertTrue(env.stream().anyMatch(l -> l.startsWith("LD_PRELOAD=")), "mlx5emu --env printed no environment");
        for (final String line : env)
        {
            final String key = line.substring(0, line.indexOf('='));
            final String value = shellWord(line.substring(line.indexOf('=') + 1));
            assertNotNull(System.getenv(key), key + " missing from the surefire environment; mlx5emu sets " + value);
            if (!key.equals("LD_PRELOAD") && !key.contains("SYSFS"))
            {
                assertEquals(value, System.getenv(key), key);
            }
            else
            {
                assertEquals(Path.of(value).toRealPath(), Path.of(System.getenv(key)).toRealPath(), key);
            }
        }
        try (DeviceList list = DeviceList.open())
        {
            assertEquals(List.of("mlx5_0"), list.names());
            assertTrue(list.get("mlx5_0").isMlx5());
        }
        try (Context context = Context.open("mlx5_0"))
        {
            assertEquals(1, context.queryDevice().physPortCnt());
        }
    }

    /**
     * The value of a {@code KEY=VALUE} line as a POSIX shell reads it: the launcher prints every value as one
     * single-quoted word (a quote inside becomes {@code '\''}), so that {@code set -a; . FILE} loads the file.
     */
    static String shellWord(final String word)
    {
        final StringBuilder value = new StringBuilder(word.length());
        for (int i = 0; i < word.length(); i++)
        {
            final char c = word.charAt(i);
            if (c == '\'')
            {
                final int end = word.indexOf('\'', i + 1);
                if (end < 0)
                {
                    throw new IllegalArgumentException("unterminated quote in " + word);
                }
                value.append(word, i + 1, end);
                i = end;
            }
            else if (c == '\\' && i + 1 < word.length())
            {
                value.append(word.charAt(++i));
            }
            else
            {
                value.append(c);
            }
        }
        return value.toString();
    }
}
