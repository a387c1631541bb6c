// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct.internal;

import java.util.Arrays;

/**
 * A map from a queue number (a 24-bit QP, WQ or SRQ number, as a CQE's sop_drop_qpn carries it) to an object, for
 * the poller's look-up of the queue a CQE belongs to: open addressing with linear probing over two parallel arrays,
 * int keys (no boxing), a look-up that allocates nothing and costs one multiply and, at a load of at most one half, a
 * probe or two whatever the number of queues. Only {@link #put} grows the arrays (it runs on attach, not on a poll);
 * {@link #remove} shifts the following entries of the run back into place instead of leaving tombstones, so look-ups
 * never slow down after many attaches and detaches.
 * <p>
 * Not thread-safe: it belongs to one poller, used from that poller's thread.
 */
public final class QpnTable
{
    /** A key no queue number can be (they are 24-bit): marks an empty slot. */
    private static final int EMPTY = -1;
    private static final int MIN_CAPACITY = 16;
    /** 2^32 / golden ratio: spreads consecutive queue numbers, which devices hand out, over the table. */
    private static final int SPREAD = 0x9e3779b9;

    private int[] keys;
    private Object[] values;
    /** 32 - log2(capacity): the hash is the top bits of key * SPREAD. */
    private int shift;
    private int size;

    /** An empty table. Confined to the thread that polls the CQ. */
    public QpnTable()
    {
        allocate(MIN_CAPACITY);
    }

    private void allocate(final int capacity)
    {
        keys = new int[capacity];
        Arrays.fill(keys, EMPTY);
        values = new Object[capacity];
        shift = 32 - Integer.numberOfTrailingZeros(capacity);
    }

    /**
     * The first slot {@code key} probes. Public for the tests that make keys collide.
     *
     * @param key the QP number
     * @param capacity the table capacity, a power of two
     * @return the slot index
     */
    public static int home(final int key, final int capacity)
    {
        return (key * SPREAD) >>> (32 - Integer.numberOfTrailingZeros(capacity));
    }

    /**
     * The value of {@code key}, or null. Allocation-free.
     *
     * @param key the QP number
     * @return the value, or null
     */
    public Object get(final int key)
    {
        final int[] k = keys;
        final int mask = k.length - 1;
        int i = (key * SPREAD) >>> shift;
        int at;
        while ((at = k[i]) != key)
        {
            if (at == EMPTY)
            {
                return null;
            }
            i = (i + 1) & mask;
        }
        return values[i];
    }

    /**
     * Maps {@code key} (0 to 2^24 - 1) to {@code value} (not null), growing the table when it would be more than half
     * full.
     *
     * @param key the QP number
     * @param value the value, not null
     * @return the previous value, or null
     */
    public Object put(final int key, final Object value)
    {
        if ((key & 0xff000000) != 0 || value == null)
        {
            throw new IllegalArgumentException("a queue number is 24 bits and its value not null: 0x" +
                Integer.toHexString(key) + " -> " + value);
        }
        if (2 * (size + 1) > keys.length)
        {
            final int[] oldKeys = keys;
            final Object[] oldValues = values;
            allocate(keys.length * 2);
            size = 0;
            for (int i = 0; i < oldKeys.length; i++)
            {
                if (oldKeys[i] != EMPTY)
                {
                    insert(oldKeys[i], oldValues[i]);
                }
            }
        }
        return insert(key, value);
    }

    private Object insert(final int key, final Object value)
    {
        final int mask = keys.length - 1;
        int i = (key * SPREAD) >>> shift;
        while (keys[i] != EMPTY)
        {
            if (keys[i] == key)
            {
                final Object old = values[i];
                values[i] = value;
                return old;
            }
            i = (i + 1) & mask;
        }
        keys[i] = key;
        values[i] = value;
        size++;
        return null;
    }

    /**
     * Removes {@code key}.
     *
     * @param key the QP number
     * @return the value {@code key} had, or null if it had none
     */
    public Object remove(final int key)
    {
        final int mask = keys.length - 1;
        int i = (key * SPREAD) >>> shift;
        while (keys[i] != key)
        {
            if (keys[i] == EMPTY)
            {
                return null;
            }
            i = (i + 1) & mask;
        }
        final Object old = values[i];
        // backward-shift deletion: move each later entry of the run whose home is not between the hole and it into
        // the hole, so that every remaining key is still reachable from its home without a tombstone
        int hole = i;
        int j = i;
        while (true)
        {
            j = (j + 1) & mask;
            final int k = keys[j];
            if (k == EMPTY)
            {
                break;
            }
            final int home = (k * SPREAD) >>> shift;
            final boolean stays = hole <= j ? hole < home && home <= j : hole < home || home <= j;
            if (!stays)
            {
                keys[hole] = k;
                values[hole] = values[j];
                hole = j;
            }
        }
        keys[hole] = EMPTY;
        values[hole] = null;
        size--;
        return old;
    }

    /**
     * Entries held.
     *
     * @return the number of entries
     */
    public int size()
    {
        return size;
    }

    /**
     * Slots (a power of two); with {@link #keyAt} and {@link #valueAt} walks the entries, off the poll path.
     *
     * @return the number of slots
     */
    public int capacity()
    {
        return keys.length;
    }

    /**
     * The key in slot {@code slot}, or -1 if it is empty.
     *
     * @param slot the slot index
     * @return the key, or -1
     */
    public int keyAt(final int slot)
    {
        return keys[slot];
    }

    /**
     * The value in slot {@code slot}, or null.
     *
     * @param slot the slot index
     * @return the value, or null
     */
    public Object valueAt(final int slot)
    {
        return values[slot];
    }
}
