// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

/**
 * A connection-management step failed. Subclasses say how: a librdmacm call failed ({@link CmCallException}), the
 * CM reported an error event ({@link CmAddressException}, {@link CmRouteException}, {@link CmRejectedException},
 * {@link CmUnreachableException}, {@link CmDisconnectedException}), or the step's own timeout ran out
 * ({@link CmTimeoutException}). The message names the step, the event and its status.
 * <p>
 * Unchecked, like {@link io.mlx5j.verbs.VerbsException}: the caller's recovery is to close and try again.
 */
public class CmException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** What was being done. */
    private final String step;
    /** The event that ended the step, or null. */
    private final CmEventType event;
    /** The event's status, 0 without one. */
    private final int status;

    CmException(final String step, final CmEventType event, final int status, final String message)
    {
        super(message);
        this.step = step;
        this.event = event;
        this.status = status;
    }

    /** The error an unexpected or failure event stands for, as the most specific subclass. */
    static CmException of(final String step, final CmEvent event)
    {
        final String message = step + ": " + event.type().cName() + ", "
            + CmStatus.describe(event.type(), event.status());
        return switch (event.type())
        {
            case ADDR_ERROR -> new CmAddressException(step, event.status(), message);
            case ROUTE_ERROR -> new CmRouteException(step, event.status(), message);
            case REJECTED -> new CmRejectedException(step, event.status(), event.privateData(), message);
            case UNREACHABLE, CONNECT_ERROR -> new CmUnreachableException(step, event.type(), event.status(), message);
            case DISCONNECTED, DEVICE_REMOVAL, TIMEWAIT_EXIT ->
                new CmDisconnectedException(step, event.type(), event.status(), message);
            default -> new CmException(step, event.type(), event.status(), message);
        };
    }

    /**
     * What was being done.
     *
     * @return the step, e.g. {@code "resolve address 127.0.0.9:7471"}, {@code "connect"}
     */
    public String step()
    {
        return step;
    }

    /**
     * The CM event that ended the step.
     *
     * @return the event type, or null when a call failed or the timeout ran out
     */
    public CmEventType event()
    {
        return event;
    }

    /**
     * The event's status.
     *
     * @return minus an errno, or the reject reason for REJECTED; 0 without an event
     */
    public int status()
    {
        return status;
    }
}
