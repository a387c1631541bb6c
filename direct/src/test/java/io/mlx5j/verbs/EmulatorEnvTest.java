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
            final String expected = shellWord(line.substring(eq + 1));
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
