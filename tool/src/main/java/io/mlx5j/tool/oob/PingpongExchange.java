// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.tool.oob;

import io.mlx5j.verbs.PeerInfo;

import java.util.function.Consumer;

/**
 * The two halves of the examples' address exchange (rdma-core v44 libibverbs/examples/rc_pingpong.c, identical in
 * ud_pingpong.c), so an mlx5j process can stand on either side of an unmodified {@code ibv_rc_pingpong} or
 * {@code ibv_ud_pingpong}:
 * <pre>
 *   client (pp_client_exch_dest)              server (pp_server_exch_dest)
 *   --------------------------                --------------------------
 *   write address (52)          ----------->  read address (52)
 *                                             connect its QP to the client (RTR, RTS)
 *   read address (52)           <-----------  write address (52)
 *   write "done" (5)            ----------->  read "done" (5)
 *   close; then connect its QP                close
 * </pre>
 * The order matters: the server's QP is ready to receive before the client learns its address, so the client may
 * send as soon as it has connected its own QP. Both examples post their receives before the exchange.
 * <p>
 * mlx5j peers may keep the connection open afterwards for {@link #exchangeBuffers} and {@link #barrier}; the
 * examples close it, so never use those against them.
 */
public final class PingpongExchange
{
    private PingpongExchange()
    {
    }

    /** The client half: returns the server's address. */
    public static PeerInfo client(final OobConnection connection, final PeerInfo local)
    {
        connection.send(PingpongWire.encodeAddress(local));
        final PeerInfo remote = PingpongWire.decodeAddress(
            connection.receive(PingpongWire.ADDRESS_BYTES, "server address"));
        connection.send(PingpongWire.encodeDone());
        return remote;
    }

    /**
     * The server half: reads the client's address, runs {@code connectToClient} (move the local QP to RTR/RTS towards
     * it) before answering, then waits for "done". Returns the client's address.
     */
    public static PeerInfo server(final OobConnection connection, final PeerInfo local,
        final Consumer<PeerInfo> connectToClient)
    {
        final PeerInfo remote = PingpongWire.decodeAddress(
            connection.receive(PingpongWire.ADDRESS_BYTES, "client address"));
        connectToClient.accept(remote);
        connection.send(PingpongWire.encodeAddress(local));
        final byte[] done = connection.receive(PingpongWire.DONE_BYTES, "done");
        if (!PingpongWire.isDone(done))
        {
            throw new IllegalStateException("expected \"done\" from " + connection.peer() + ", got "
                + java.util.HexFormat.of().formatHex(done));
        }
        return remote;
    }

    /**
     * mlx5j extension: both sides advertise their RDMA buffer (client first). Returns {@code remote} with the peer's
     * rkey, address and length.
     */
    public static PeerInfo exchangeBuffers(final OobConnection connection, final boolean client, final PeerInfo local,
        final PeerInfo remote)
    {
        if (client)
        {
            connection.send(PingpongWire.encodeBuffer(local));
            return PingpongWire.decodeBuffer(remote, connection.receive(PingpongWire.BUFFER_BYTES, "buffer"));
        }
        final PeerInfo result = PingpongWire.decodeBuffer(remote,
            connection.receive(PingpongWire.BUFFER_BYTES, "buffer"));
        connection.send(PingpongWire.encodeBuffer(local));
        return result;
    }

    /**
     * mlx5j extension: both sides send "done" and wait for the other's, so neither runs ahead (e.g. starts posting
     * before the peer has set up, or tears down while the peer's last operations are in flight).
     */
    public static void barrier(final OobConnection connection, final String what)
    {
        connection.send(PingpongWire.encodeDone());
        final byte[] token = connection.receive(PingpongWire.DONE_BYTES, what + " barrier");
        if (!PingpongWire.isDone(token))
        {
            throw new IllegalStateException("expected the " + what + " barrier from " + connection.peer() + ", got "
                + java.util.HexFormat.of().formatHex(token));
        }
    }
}
