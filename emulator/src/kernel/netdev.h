/* SPDX-License-Identifier: Apache-2.0 */
/* Layer 1: the emulated network interfaces. On Ethernet links each device's port has one, private to the processes
 * under the emulator (no kernel interface exists): name mlx5emuN, ifindex EMU_NETDEV_IFINDEX0 + N, the port's MAC
 * and the fabric's MTU. The launcher writes the same facts into the sysfs tree (<pci function>/net/mlx5emuN and
 * class/net/mlx5emuN); the interposers answer ioctl(SIOCGIF*, SIOCETHTOOL), if_nametoindex/if_indextoname and the
 * RDMA netlink port queries (netlink.c) from here. */
#ifndef MLX5EMU_NETDEV_H
#define MLX5EMU_NETDEV_H

#include <stdint.h>

#define EMU_NETDEV_PREFIX "mlx5emu"
/* ifindex of mlx5emu0: far above what a host's kernel hands out (it counts up from 1), so a program that mixes the
 * emulated interfaces with real ones never confuses them; must agree with the launcher's tree */
#define EMU_NETDEV_IFINDEX0 5063936u /* 0x4d4500 */

int emu_netdev_count(void);                                  /* interfaces: the devices on Ethernet, else 0 */
int emu_netdev_by_name(const char *name);                    /* device index of an interface name, or -1 */
int emu_netdev_by_ifindex(uint32_t ifindex);                 /* device index of an ifindex, or -1 */
uint32_t emu_netdev_ifindex(int dev);
void emu_netdev_name(int dev, char out[16]);
int emu_netdev_running(int dev);                             /* carrier: the fabric's port state */
/* ioctl(fd, req, arg) on a socket: *served = 0 when arg does not name an emulated interface (the kernel answers);
 * else the result (0, or -1 with errno) of the SIOCGIF*, SIOCSIFFLAGS/MTU and SIOCETHTOOL requests on it. */
int emu_netdev_ioctl(unsigned long req, void *arg, int *served);

#endif
