// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

/** Receives the events {@link EventChannel#poll(CmEventHandler, int)} reads, on the polling thread. */
@FunctionalInterface
public interface CmEventHandler
{
    /**
     * One event, already acknowledged: the handler may keep {@code event}, and may destroy its id.
     *
     * @param event the copied event
     */
    void onEvent(CmEvent event);
}
