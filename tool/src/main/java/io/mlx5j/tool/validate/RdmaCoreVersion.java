// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.validate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The rdma-core release of the libibverbs and libmlx5 this process has loaded. rdma-core names its libraries
 * {@code lib<name>.so.<soname>.<abi>.<release>.0} (libibverbs.so.1.14.44.0 is release 44), so the path of the mapped
 * file in /proc/self/maps says which release runs, whatever the package manager or a local prefix installed.
 */
record RdmaCoreVersion(String verbsFile, String mlx5File, int verbsRelease, int mlx5Release)
{
    /** The oldest release mlx5j supports: Debian 12's, which CI runs; its struct layouts and opcodes are mlx5j's. */
    static final int OLDEST = 44;
    /**
     * The releases mlx5j's parity tests, the emulator's tests, the peer programs and {@code mlx5j validate} passed on:
     * 44 in CI, 65 through scripts/check-rdma-core.sh (docs/hardware.md, "rdma-core releases"). Those between were
     * not run.
     */
    static final int[] VERIFIED = {44, 65};
    /**
     * Environment variable that replaces the release read from the mapped files (both libraries): how a test, or a
     * user asking "would this release be accepted", sees the verdict without installing it.
     */
    static final String ASSUME_ENV = "MLX5J_VALIDATE_ASSUME_RDMA_CORE";

    private static final Pattern RELEASE = Pattern.compile("\\.so\\.\\d+\\.\\d+\\.(\\d+)\\.\\d+$");

    /** Reads /proc/self/maps; call after libibverbs and libmlx5 are loaded (a device list was opened). */
    static RdmaCoreVersion running() throws IOException
    {
        String verbs = null;
        String mlx5 = null;
        for (final String line : Files.readAllLines(Path.of("/proc/self/maps")))
        {
            final int slash = line.indexOf('/');
            if (slash < 0)
            {
                continue;
            }
            final String path = line.substring(slash);
            final String name = Path.of(path).getFileName().toString();
            if (verbs == null && name.startsWith("libibverbs.so."))
            {
                verbs = path;
            }
            else if (mlx5 == null && name.startsWith("libmlx5.so."))
            {
                mlx5 = path;
            }
        }
        final String assumed = System.getenv(ASSUME_ENV);
        if (assumed != null && !assumed.isBlank())
        {
            final int r = Integer.parseInt(assumed.trim());
            return new RdmaCoreVersion(verbs, mlx5, r, r);
        }
        return new RdmaCoreVersion(verbs, mlx5, release(verbs), release(mlx5));
    }

    /**
     * Whether {@code release} is one of {@link #VERIFIED}.
     *
     * @param release an rdma-core release
     * @return true if the checks ran on it
     */
    static boolean verified(final int release)
    {
        for (final int v : VERIFIED)
        {
            if (v == release)
            {
                return true;
            }
        }
        return false;
    }

    /** {@return the verified releases, for messages: "44 and 65"} */
    static String verifiedList()
    {
        final StringBuilder b = new StringBuilder();
        for (int i = 0; i < VERIFIED.length; i++)
        {
            b.append(i == 0 ? "" : i == VERIFIED.length - 1 ? " and " : ", ").append(VERIFIED[i]);
        }
        return b.toString();
    }

    /** The release in a library file name, or -1 when the name does not follow rdma-core's scheme. */
    static int release(final String path)
    {
        if (path == null)
        {
            return -1;
        }
        final Matcher m = RELEASE.matcher(path);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }
}
