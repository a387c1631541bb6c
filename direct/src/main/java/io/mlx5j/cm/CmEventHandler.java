// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.cm;

/** Receives the events {@link EventChannel#poll(CmEventHandler, int)} reads, on the polling thread. */
@FunctionalInterface
public interface CmEventHandler
{
    void onEvent(CmEvent event);
}
