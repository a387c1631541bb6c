/* SPDX-License-Identifier: Apache-2.0 */
/* The emulated network interfaces (netdev.h). The flags a program sets (IFF_PROMISC, IFF_ALLMULTI, IFF_UP) are kept
 * per process, as the facts of an interface nobody else sees; the engine does not filter by them (every raw frame
 * reaches the steering rules, as a port in promiscuous mode). */
#include <errno.h>
#include <stddef.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "kernel.h"
#include "netdev.h"
#include "../emu_counters.h"
#include "../emu_profile.h"
#include "../eth_knobs.h"

/* IFF_UP | IFF_BROADCAST | IFF_RUNNING | IFF_MULTICAST: an up, cabled port; IFF_RUNNING follows the port state */
static _Atomic unsigned g_flags[EMU_MAX_DEVICES];
static _Atomic int g_flags_set[EMU_MAX_DEVICES];

int emu_netdev_count(void)
{
	const struct emu_port_info *p = emu_port_info(0);
	return p && p->link_layer == EMU_LINK_ETH ? emu_num_devices() : 0;
}

int emu_netdev_by_name(const char *name)
{
	size_t n = sizeof EMU_NETDEV_PREFIX - 1;
	if (!name || strncmp(name, EMU_NETDEV_PREFIX, n) != 0)
		return -1;
	const char *d = name + n;
	if (d[0] < '0' || d[0] > '9' || d[1] != '\0')
		return -1;
	int dev = d[0] - '0';
	return dev < emu_netdev_count() ? dev : -1;
}

int emu_netdev_by_ifindex(uint32_t ifindex)
{
	if (ifindex < EMU_NETDEV_IFINDEX0 || ifindex - EMU_NETDEV_IFINDEX0 >= (uint32_t)emu_netdev_count())
		return -1;
	return (int)(ifindex - EMU_NETDEV_IFINDEX0);
}

uint32_t emu_netdev_ifindex(int dev) { return EMU_NETDEV_IFINDEX0 + (uint32_t)dev; }

void emu_netdev_name(int dev, char out[16]) { snprintf(out, 16, EMU_NETDEV_PREFIX "%d", dev); }

int emu_netdev_running(int dev) { return !emu_port_is_down(dev); }

static unsigned netdev_flags(int dev)
{
	unsigned f = atomic_load(&g_flags_set[dev]) ? atomic_load(&g_flags[dev])
						     : (unsigned)(IFF_UP | IFF_BROADCAST | IFF_MULTICAST);
	f &= ~(unsigned)IFF_RUNNING;
	if ((f & IFF_UP) && emu_netdev_running(dev))
		f |= IFF_RUNNING;
	return f;
}

/* The ethtool statistics: the port counters the emulator keeps (emu_counters.h), under the names Linux mlx5e gives
 * them, which DPDK's mlx5 driver looks for (drivers/net/mlx5/linux/mlx5_ethdev_os.c, mlx5_counters_init): its
 * xstats then show the emulator's own counts. The vport and phy counters are the same here: one function per port. */
static const struct {
	const char *name;
	enum emu_port_counter c;
} g_stats[] = {
	{"rx_vport_unicast_packets", EMU_CNT_UNICAST_RCV_PACKETS},
	{"rx_vport_multicast_packets", EMU_CNT_MULTICAST_RCV_PACKETS},
	{"tx_vport_unicast_packets", EMU_CNT_UNICAST_XMIT_PACKETS},
	{"tx_vport_multicast_packets", EMU_CNT_MULTICAST_XMIT_PACKETS},
	{"rx_packets_phy", EMU_CNT_PORT_RCV_PACKETS},
	{"tx_packets_phy", EMU_CNT_PORT_XMIT_PACKETS},
};
#define NSTATS (sizeof g_stats / sizeof g_stats[0])

/* SIOCETHTOOL: ETHTOOL_GSET: 100 Gb/s full duplex (the sysfs rate "100 Gb/sec (4X EDR)"), fibre, no
 * autonegotiation (the newer ETHTOOL_GLINKSETTINGS is answered EOPNOTSUPP, as by kernels before 4.9: programs then
 * use GSET); GDRVINFO, GSTRINGS and GSTATS of the statistics above; anything else EOPNOTSUPP. */
static int netdev_ethtool(int dev, struct ifreq *ifr)
{
	uint32_t cmd;
	uint64_t data = (uint64_t)(uintptr_t)ifr->ifr_data;
	if (emu_copy_from_user(&cmd, data, sizeof cmd)) {
		errno = EFAULT;
		return -1;
	}
	if (cmd == ETHTOOL_GDRVINFO) {
		struct ethtool_drvinfo di;
		const struct emu_profile *prof = emu_profile();
		memset(&di, 0, sizeof di);
		di.cmd = cmd;
		snprintf(di.driver, sizeof di.driver, "mlx5_core");
		snprintf(di.version, sizeof di.version, "6.1.0");
		/* as mlx5e: "major.minor.sub (board id)", the board id when it fits (it does for every profile) */
		char fw[24];
		snprintf(fw, sizeof fw, "%u.%u.%u", prof->fw_major, prof->fw_minor, prof->fw_sub);
		size_t fl = strlen(fw);
		memcpy(di.fw_version, fw, fl);
		if (fl + 16 < sizeof di.fw_version)
			memcpy(di.fw_version + fl, " (MT_0000000008)", 16);
		snprintf(di.bus_info, sizeof di.bus_info, "e0000:00:%02x.0", (unsigned)dev);
		di.n_stats = (uint32_t)NSTATS;
		if (emu_copy_to_user(data, &di, sizeof di)) {
			errno = EFAULT;
			return -1;
		}
		return 0;
	}
	if (cmd == ETHTOOL_GSTRINGS || cmd == ETHTOOL_GSTATS) {
		/* the header says how much room follows; the kernel fills its own count and returns it in len */
		struct ethtool_gstrings gs;
		if (emu_copy_from_user(&gs, data, sizeof gs)) {
			errno = EFAULT;
			return -1;
		}
		if (cmd == ETHTOOL_GSTRINGS && gs.string_set != ETH_SS_STATS) {
			errno = EOPNOTSUPP;
			return -1;
		}
		for (size_t i = 0; i < NSTATS; i++) {
			int r;
			if (cmd == ETHTOOL_GSTRINGS) {
				char name[ETH_GSTRING_LEN];
				memset(name, 0, sizeof name);
				snprintf(name, sizeof name, "%s", g_stats[i].name);
				r = emu_copy_to_user(data + sizeof gs + i * ETH_GSTRING_LEN, name, sizeof name);
			} else {
				uint64_t v = emu_port_counter_read(dev, g_stats[i].c);
				r = emu_copy_to_user(data + sizeof(struct ethtool_stats) + i * 8, &v, 8);
			}
			if (r) {
				errno = EFAULT;
				return -1;
			}
		}
		uint32_t n = (uint32_t)NSTATS;
		/* len (GSTRINGS) and n_stats (GSTATS) both sit at offset 8 and 4 respectively */
		if (emu_copy_to_user(data + (cmd == ETHTOOL_GSTRINGS ? offsetof(struct ethtool_gstrings, len)
								     : offsetof(struct ethtool_stats, n_stats)),
				     &n, sizeof n)) {
			errno = EFAULT;
			return -1;
		}
		return 0;
	}
	if (cmd != ETHTOOL_GSET) {
		errno = EOPNOTSUPP;
		return -1;
	}
	struct ethtool_cmd ec;
	memset(&ec, 0, sizeof ec);
	ec.cmd = ETHTOOL_GSET;
	ec.supported = SUPPORTED_40000baseKR4_Full | SUPPORTED_40000baseCR4_Full | SUPPORTED_40000baseSR4_Full |
		       SUPPORTED_40000baseLR4_Full | SUPPORTED_FIBRE;
	ec.advertising = ec.supported;
	ethtool_cmd_speed_set(&ec, emu_netdev_running(dev) ? 100000 : (uint32_t)-1);
	ec.duplex = emu_netdev_running(dev) ? DUPLEX_FULL : DUPLEX_UNKNOWN;
	ec.port = PORT_FIBRE;
	ec.transceiver = XCVR_EXTERNAL;
	ec.autoneg = AUTONEG_DISABLE;
	if (emu_copy_to_user(data, &ec, sizeof ec)) {
		errno = EFAULT;
		return -1;
	}
	return 0;
}

int emu_netdev_ioctl(unsigned long req, void *arg, int *served)
{
	*served = 0;
	if ((req & ~0xffUL) != 0x8900UL || !arg || emu_netdev_count() == 0)
		return 0;
	struct ifreq ifr;
	if (emu_copy_from_user(&ifr, (uint64_t)(uintptr_t)arg, sizeof ifr))
		return 0; /* the kernel answers EFAULT */
	int dev;
	if (req == SIOCGIFNAME) {
		dev = emu_netdev_by_ifindex((uint32_t)ifr.ifr_ifindex);
		if (dev < 0)
			return 0;
		*served = 1;
		emu_netdev_name(dev, ifr.ifr_name);
	} else {
		ifr.ifr_name[IFNAMSIZ - 1] = '\0';
		if (strncmp(ifr.ifr_name, EMU_NETDEV_PREFIX, sizeof EMU_NETDEV_PREFIX - 1) != 0)
			return 0;
		*served = 1;
		dev = emu_netdev_by_name(ifr.ifr_name);
		if (dev < 0) {
			errno = ENODEV;
			return -1;
		}
		switch (req) {
		case SIOCGIFINDEX:
			ifr.ifr_ifindex = (int)emu_netdev_ifindex(dev);
			break;
		case SIOCGIFFLAGS:
			ifr.ifr_flags = (short)netdev_flags(dev);
			break;
		case SIOCSIFFLAGS:
			atomic_store(&g_flags[dev], (unsigned)(unsigned short)ifr.ifr_flags);
			atomic_store(&g_flags_set[dev], 1);
			return 0;
		case SIOCGIFMTU:
			ifr.ifr_mtu = (int)emu_eth_mtu();
			break;
		case SIOCSIFMTU:
			/* the MTU belongs to the fabric (MLX5EMU_ETH_MTU): every port of it frames alike */
			if (ifr.ifr_mtu == (int)emu_eth_mtu())
				return 0;
			errno = EOPNOTSUPP;
			return -1;
		case SIOCGIFHWADDR:
			memset(&ifr.ifr_hwaddr, 0, sizeof ifr.ifr_hwaddr);
			ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
			memcpy(ifr.ifr_hwaddr.sa_data, emu_port_info(dev)->mac, 6);
			break;
		case SIOCGIFTXQLEN:
			ifr.ifr_qlen = 1000;
			break;
		case SIOCETHTOOL:
			return netdev_ethtool(dev, &ifr);
		default:
			errno = EOPNOTSUPP;
			return -1;
		}
	}
	if (emu_copy_to_user((uint64_t)(uintptr_t)arg, &ifr, sizeof ifr)) {
		errno = EFAULT;
		return -1;
	}
	return 0;
}
