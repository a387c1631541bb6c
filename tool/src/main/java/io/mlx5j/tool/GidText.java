// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool;

import io.mlx5j.verbs.Gid;

/**
 * A GID as the rdma-core examples print it: {@code inet_ntop(AF_INET6, ...)} of the 16 wire bytes, glibc's form
 * (RFC 5952 style: lower-case groups without leading zeros, the longest run of two or more zero groups, the first of
 * equal runs, as "::"; and the IPv4 forms {@code ::a.b.c.d} / {@code ::ffff:a.b.c.d} that RoCE v2 GIDs of IPv4
 * addresses take). The examples' "local address:" lines show it, and the interop tests compare those lines.
 */
public final class GidText
{
    private GidText()
    {
    }

    public static String ntop(final Gid gid)
    {
        final byte[] b = gid.toBytes();
        final int[] words = new int[8];
        for (int i = 0; i < 8; i++)
        {
            words[i] = (b[2 * i] & 0xff) << 8 | (b[2 * i + 1] & 0xff);
        }
        int bestBase = -1;
        int bestLen = 0;
        for (int i = 0; i < 8; )
        {
            if (words[i] != 0)
            {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && words[j] == 0)
            {
                j++;
            }
            if (j - i > bestLen)
            {
                bestBase = i;
                bestLen = j - i;
            }
            i = j;
        }
        if (bestLen < 2)
        {
            bestBase = -1;
        }
        final StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++)
        {
            if (bestBase >= 0 && i >= bestBase && i < bestBase + bestLen)
            {
                if (i == bestBase)
                {
                    sb.append(':');
                }
                continue;
            }
            if (i != 0)
            {
                sb.append(':');
            }
            if (i == 6 && bestBase == 0 && (bestLen == 6 || (bestLen == 5 && words[5] == 0xffff)))
            {
                sb.append(b[12] & 0xff).append('.').append(b[13] & 0xff).append('.').append(b[14] & 0xff).append('.')
                    .append(b[15] & 0xff);
                return sb.toString();
            }
            sb.append(Integer.toHexString(words[i]));
        }
        if (bestBase >= 0 && bestBase + bestLen == 8)
        {
            sb.append(':');
        }
        return sb.toString();
    }
}
