// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

/**
 * A fixed batch of reusable {@link Completion} views for {@link CqPoller#poll(Completions, int)}: allocated once,
 * refilled by every poll. Not thread-safe.
 */
public final class Completions
{
    private final Completion[] entries;

    /**
     * Creates {@code capacity} reusable completions. Any thread may construct it; a poll then fills it on the polling
     * thread.
     *
     * @param capacity the most completions one poll returns
     */
    public Completions(final int capacity)
    {
        if (capacity < 1)
        {
            throw new IllegalArgumentException("capacity must be >= 1: " + capacity);
        }
        entries = new Completion[capacity];
        for (int i = 0; i < capacity; i++)
        {
            entries[i] = new Completion();
        }
    }

    /** {@return the number of completions this batch holds} */
    public int capacity()
    {
        return entries.length;
    }

    /**
     * The i-th completion of the last poll (valid for i below what that poll returned).
     *
     * @param i the index, below what the last poll returned
     * @return the completion view
     */
    public Completion get(final int i)
    {
        return entries[i];
    }
}
