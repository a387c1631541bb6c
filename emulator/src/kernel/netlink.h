/* SPDX-License-Identifier: Apache-2.0 */
/* Layer 3: emulated NETLINK_RDMA sockets (netlink.c), for the interposers of socket, sendmsg, recvmsg and the
 * rest in interpose.c. */
#ifndef MLX5EMU_NETLINK_H
#define MLX5EMU_NETLINK_H

#include <sys/types.h>
#include <linux/netlink.h>

int emu_netlink_is_fd(int fd);
int emu_netlink_socket(int type);                         /* a new socket's fd, or -1 with errno */
void emu_netlink_close(int fd);                            /* before the real close of fd */
void emu_netlink_dup(int oldfd, int newfd);
void emu_netlink_sockname(int fd, struct sockaddr_nl *sa);
ssize_t emu_netlink_send(int fd, const void *buf, size_t len); /* one datagram of requests; answers are queued */

#endif
