// SPDX-License-Identifier: Apache-2.0
/** {@code mlx5j feed publish | subscribe}: a market-data feed of UDP multicast datagrams over raw Ethernet. */
package io.mlx5j.tool.feed;
