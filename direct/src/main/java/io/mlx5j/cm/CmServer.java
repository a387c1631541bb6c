// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

import io.mlx5j.verbs.QueuePair;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A connection server over a {@link CmListener} that accepts many requests at once: one thread takes each
 * CONNECT_REQUEST as it arrives and hands it to one of {@code maxInFlight} accept threads, which create the QP,
 * accept and wait for the requester's RTU (ESTABLISHED) for at most the request's own timeout
 * ({@link ConnectOptions#connectTimeout()}). A requester that is slow or dead holds one accept thread until its
 * timeout, never the others: the serial {@code awaitRequest} + {@code accept} loop let one such requester stall
 * every request behind it for a whole connect timeout. Requests beyond {@code maxInFlight} wait in the listener's
 * backlog.
 * <p>
 * Threads: the server's threads run {@link QpFactory#create} and {@code onReceiveReady} (so those must be safe to
 * call from several threads at once); {@link #take} may be called from any thread; {@link #close()} from any thread
 * but one of the server's. Established connections belong to whoever takes them; the ones never taken are closed
 * by {@link #close()}. A failed accept (timeout, reject, QP creation error) has already destroyed its QP and its
 * request's id ({@link ConnectionRequest#accept}); the server counts it and keeps the exception
 * ({@link #failures()}).
 */
public final class CmServer implements AutoCloseable
{
    /** How often the request thread looks up from the listener to see whether the server is closing. */
    private static final Duration REQUEST_POLL = Duration.ofMillis(100);
    /** The most accept failures kept for {@link #failures()}; the count goes on. */
    private static final int FAILURES_KEPT = 64;

    private final CmListener listener;
    private final QpFactory qpFactory;
    private final ConnectOptions options;
    private final Consumer<QueuePair> onReceiveReady;
    private final Semaphore slots;
    private final ExecutorService accepting;
    private final Thread requests;
    private final BlockingQueue<CmConnection> established = new LinkedBlockingQueue<>();
    private final BlockingQueue<RuntimeException> failures = new ArrayBlockingQueue<>(FAILURES_KEPT);
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicLong requested = new AtomicLong();
    private volatile boolean closing;
    private volatile RuntimeException listenerFailure;

    private CmServer(final CmListener listener, final int maxInFlight, final QpFactory qpFactory,
        final ConnectOptions options, final Consumer<QueuePair> onReceiveReady)
    {
        this.listener = listener;
        this.qpFactory = qpFactory;
        this.options = options;
        this.onReceiveReady = onReceiveReady;
        this.slots = new Semaphore(maxInFlight);
        final AtomicInteger n = new AtomicInteger();
        this.accepting = Executors.newFixedThreadPool(maxInFlight, r ->
        {
            final Thread t = new Thread(r, "mlx5j-cm-accept-" + listener.port() + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.requests = new Thread(this::takeRequests, "mlx5j-cm-requests-" + listener.port());
        this.requests.setDaemon(true);
    }

    /**
     * Starts accepting on {@code listener}, which stays the caller's (close it after the server).
     *
     * @param listener       the listening id whose requests this server answers; nothing else may await them
     * @param maxInFlight    how many accepts may wait for their requester at once, at least 1
     * @param qpFactory      makes each connection's QP, on an accept thread
     * @param options        private data, responder resources and initiator depth of every accept; its
     *                       {@link ConnectOptions#connectTimeout()} bounds each request's wait for ESTABLISHED
     * @param onReceiveReady runs on the accept thread with the QP in INIT before the accept leaves; may be null
     * @return the running server
     * @throws IllegalArgumentException if {@code maxInFlight} is below 1
     */
    public static CmServer start(final CmListener listener, final int maxInFlight, final QpFactory qpFactory,
        final ConnectOptions options, final Consumer<QueuePair> onReceiveReady)
    {
        if (maxInFlight < 1)
        {
            throw new IllegalArgumentException("maxInFlight must be at least 1: " + maxInFlight);
        }
        final CmServer server = new CmServer(listener, maxInFlight, qpFactory, options, onReceiveReady);
        server.requests.start();
        return server;
    }

    private void takeRequests()
    {
        try
        {
            while (!closing)
            {
                slots.acquire();    // beyond maxInFlight, requests wait in the listener's backlog
                final ConnectionRequest request;
                try
                {
                    request = listener.awaitRequest(REQUEST_POLL);
                }
                catch (final CmTimeoutException ex)
                {
                    slots.release();
                    continue;
                }
                requested.incrementAndGet();
                accepting.execute(() -> acceptOne(request));
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        catch (final RuntimeException ex)
        {
            if (!closing)
            {
                listenerFailure = ex;    // the listening id failed (DEVICE_REMOVAL ...): take() reports it
            }
        }
    }

    private void acceptOne(final ConnectionRequest request)
    {
        try
        {
            final CmConnection connection = request.accept(qpFactory, options, onReceiveReady);
            established.add(connection);
        }
        catch (final RuntimeException ex)
        {
            failed.incrementAndGet();
            if (!failures.offer(ex))
            {
                failures.poll();
                failures.offer(ex);
            }
        }
        finally
        {
            slots.release();
        }
    }

    /**
     * The next established connection, in the order their RTUs arrived.
     *
     * @param timeout how long to block the calling thread
     * @return the connection, now the caller's, or null if none was established within {@code timeout}
     * @throws CmException if the listening id failed (the server takes no more requests)
     * @throws IllegalStateException if the server is closed
     * @throws InterruptedException if the calling thread is interrupted while it waits
     */
    public CmConnection take(final Duration timeout) throws InterruptedException
    {
        if (closing)
        {
            throw new IllegalStateException(this + " is closed");
        }
        final CmConnection c = established.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        final RuntimeException failure = listenerFailure;
        if (c == null && failure != null)
        {
            throw failure;
        }
        return c;
    }

    /**
     * Requests taken from the listener so far, answered or still in flight.
     *
     * @return the count
     */
    public long requests()
    {
        return requested.get();
    }

    /**
     * Accepts that failed so far (the requester timed out, rejected, vanished, or the QP could not be made).
     *
     * @return the count
     */
    public int failed()
    {
        return failed.get();
    }

    /**
     * The most recent accept failures, oldest first (at most 64 are kept).
     *
     * @return a copy
     */
    public List<RuntimeException> failures()
    {
        return new ArrayList<>(failures);
    }

    /**
     * Stops taking requests, waits for the accepts in flight to end (each within its connect timeout), and closes
     * the connections nobody took. The listener stays open.
     *
     * @throws IllegalStateException if called from one of the server's own threads
     */
    @Override
    public void close()
    {
        if (Thread.currentThread() == requests || Thread.currentThread().getName().startsWith("mlx5j-cm-accept-"))
        {
            throw new IllegalStateException("close " + this + " from a thread of its own");
        }
        closing = true;
        boolean interrupted = false;
        try
        {
            requests.join();
            accepting.shutdown();
            while (!accepting.awaitTermination(1, TimeUnit.SECONDS))
            {
                Thread.onSpinWait();    // each accept ends within its own connect timeout
            }
        }
        catch (final InterruptedException ex)
        {
            interrupted = true;
        }
        for (CmConnection c = established.poll(); c != null; c = established.poll())
        {
            c.close();
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString()
    {
        return "CmServer(" + listener + ", " + requested.get() + " requests, " + failed.get() + " failed)";
    }
}
