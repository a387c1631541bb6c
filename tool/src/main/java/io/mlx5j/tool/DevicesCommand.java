// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool;

import io.mlx5j.verbs.Context;
import io.mlx5j.verbs.Device;
import io.mlx5j.verbs.DeviceAttributes;
import io.mlx5j.verbs.DeviceList;
import io.mlx5j.verbs.Gid;
import io.mlx5j.verbs.PortAttributes;
import io.mlx5j.verbs.VerbsException;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code mlx5j devices [-d NAME]}: every device with its node GUID, and per port the state, link layer, LID, active
 * MTU and the non-zero GIDs, as ibv_devinfo reports them (but through mlx5j's control path).
 */
public final class DevicesCommand
{
    public static final String USAGE = "usage: mlx5j devices [-d NAME]";

    private DevicesCommand()
    {
    }

    static int run(final String[] argv, final PrintStream out)
    {
        String only = null;
        final Args a = new Args(argv);
        while (a.hasNext())
        {
            final String o = a.nextToken();
            switch (o)
            {
                case "-d", "--device", "--ib-dev" -> only = a.value(o);
                case "--emulated" -> a.noValue(o);
                default -> throw new UsageException("unknown option '" + o + "'");
            }
        }
        try (DeviceList list = DeviceList.open())
        {
            out.println("mlx5j: " + list.size() + (list.size() == 1 ? " device" : " devices") + Mlx5jTool.platform());
            if (list.size() == 0)
            {
                return only == null ? 0 : 1;
            }
            boolean found = false;
            for (final Device device : list.devices())
            {
                if (only != null && !only.equals(device.name()))
                {
                    continue;
                }
                found = true;
                describe(device, out);
            }
            if (!found)
            {
                throw new UsageException("no device named '" + only + "'; devices: " + list.names());
            }
        }
        return 0;
    }

    private static void describe(final Device device, final PrintStream out)
    {
        out.printf(Locale.ROOT, "%s%n", device.name());
        out.printf(Locale.ROOT, "    node GUID      %s%n", guid(device.guid()));
        try (Context context = device.open())
        {
            final DeviceAttributes attr = context.queryDevice();
            out.printf(Locale.ROOT, "    driver         %s (vendor 0x%x part %d, fw %s)%n",
                context.isMlx5() ? "mlx5" : "not mlx5: the direct path needs an mlx5 device", attr.vendorId(),
                attr.vendorPartId(), attr.fwVer());
            for (int port = 1; port <= attr.physPortCnt(); port++)
            {
                final PortAttributes p = context.queryPort(port);
                out.printf(Locale.ROOT, "    port %d         %s, %s, LID 0x%04x, MTU %d%n", port, portState(p.state()),
                    p.isEthernet() ? "Ethernet (RoCE)" : "InfiniBand", p.lid(), p.activeMtuBytes());
                for (final String gid : gids(context, p))
                {
                    out.printf(Locale.ROOT, "        %s%n", gid);
                }
            }
        }
    }

    /** The non-zero entries of the GID table, as "GID[i] value". */
    static List<String> gids(final Context context, final PortAttributes port)
    {
        final List<String> gids = new ArrayList<>();
        for (int i = 0; i < port.gidTblLen(); i++)
        {
            final Gid gid;
            try
            {
                gid = context.queryGid(port.port(), i);
            }
            catch (final VerbsException ex)
            {
                continue; // an unpopulated entry on some kernels; ibv_devinfo skips it as well
            }
            if (!gid.isZero())
            {
                gids.add(String.format(Locale.ROOT, "GID[%3d]  %s", i, gid));
            }
        }
        return gids;
    }

    /** ibv_devinfo's GUID form: four groups of 4 hex digits. */
    static String guid(final long guid)
    {
        final String hex = String.format(Locale.ROOT, "%016x", guid);
        return hex.substring(0, 4) + ":" + hex.substring(4, 8) + ":" + hex.substring(8, 12) + ":" + hex.substring(12);
    }

    /** enum ibv_port_state. */
    public static String portState(final int state)
    {
        return switch (state)
        {
            case 0 -> "NOP";
            case 1 -> "DOWN";
            case 2 -> "INIT";
            case 3 -> "ARMED";
            case 4 -> "ACTIVE";
            case 5 -> "ACTIVE_DEFER";
            default -> "state " + state;
        };
    }
}
