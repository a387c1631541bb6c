package io.mlx5j.verbs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The test JVM runs under the environment that {@code emulator/mlx5emu --env DIR} prints (surefire
 * environmentVariables in this module's pom). If the launcher starts to need another variable or value, this fails
 * and says which, instead of the device tests failing mysteriously.
 */
class EmulatorEnvTest
{
    @Test
    void surefireEnvironmentIsWhatTheLauncherPrints() throws IOException
    {
        final String file = System.getProperty("mlx5emu.env");
        assertNotNull(file, "system property mlx5emu.env not set (run through Maven)");
        // the file also holds whatever building the emulator library printed (exec-maven-plugin merges the
        // streams); the environment is the KEY=VALUE lines
        final var lines = Files.readAllLines(Path.of(file)).stream()
            .filter(l -> l.matches("[A-Z][A-Z0-9_]*=.*")).toList();
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("SYSFS_PATH="))
            && lines.stream().anyMatch(l -> l.startsWith("LD_PRELOAD=")), "mlx5emu --env printed no environment");
        for (final String line : lines)
        {
            final int eq = line.indexOf('=');
            final String key = line.substring(0, eq);
            final String expected = line.substring(eq + 1);
            final String actual = System.getenv(key);
            assertNotNull(actual, key + " is not set in the test JVM; the launcher sets it to " + expected);
            if (key.equals("LD_PRELOAD") || key.endsWith("SYSFS") || key.equals("SYSFS_PATH"))
            {
                assertEquals(Path.of(expected).toRealPath(), Path.of(actual).toRealPath(), key);
            }
            else
            {
                assertEquals(expected, actual, key);
            }
        }
    }
}
