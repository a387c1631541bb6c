// SPDX-License-Identifier: Apache-2.0
/**
 * Connection management the standard way: librdmacm ({@code rdma/rdma_cma.h}) over FFM. IP addresses resolve to a
 * device, port and GIDs; connections carry private data and report rejects, timeouts, address errors and
 * disconnects as events; the connected QP is an ordinary {@link io.mlx5j.verbs.QueuePair} for the Java direct path.
 * <pre>
 *   active:   CmConnection.connect(address, options, qpFactory)     resolve address, route; QP; connect; ESTABLISHED
 *   passive:  CmListener.bind(address, backlog).awaitRequest(timeout) -> ConnectionRequest.accept(qpFactory, options)
 *   event loop: EventChannel.fd() + EventChannel.poll(handler, limit) with CmId's asynchronous steps
 * </pre>
 * Every blocking step has a timeout; failures are {@link io.mlx5j.cm.CmException} subclasses naming the step, the
 * CM event and its status. Nothing an attempt created outlives its failure.
 */
package io.mlx5j.cm;
