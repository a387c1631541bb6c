// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.verbs;

/**
 * A context's QPs, CQs and SRQs by the address of their libibverbs struct: libibverbs reports an event's object as that
 * pointer ({@code ibv_get_async_event}, {@code ibv_get_cq_event}), and the event path maps it back with {@link #get},
 * which takes no lock and allocates nothing (no boxed key).
 * <p>
 * Open addressing with linear probing over a table that is never changed once published: {@link #put} and
 * {@link #remove} (creation and close, under the Context's lock) build a new one and publish it through a volatile
 * field, so a reader sees either table whole. Copying costs O(objects) per creation, negligible next to the
 * ibv_create_* system call it follows.
 */
final class ObjectsByAddress
{
    private static final class Table
    {
        final long[] keys;
        final NativeResource[] values;
        int size;

        Table(final int capacity)
        {
            keys = new long[capacity];
            values = new NativeResource[capacity];
        }
    }

    private volatile Table table = new Table(16);

    /** The object at {@code address}, or null (also for address 0, never a key). */
    NativeResource get(final long address)
    {
        final Table t = table;
        final int mask = t.keys.length - 1;
        for (int i = slot(address, mask); ; i = (i + 1) & mask)
        {
            final long k = t.keys[i];
            if (k == address)
            {
                return address == 0 ? null : t.values[i];
            }
            if (k == 0)
            {
                return null;
            }
        }
    }

    synchronized void put(final long address, final NativeResource value)
    {
        final Table old = table;
        int capacity = old.keys.length;
        while ((old.size + 1) * 2 > capacity)
        {
            capacity <<= 1;
        }
        final Table t = copyWithout(old, capacity, address);
        insert(t, address, value);
        table = t;
    }

    synchronized void remove(final long address)
    {
        table = copyWithout(table, table.keys.length, address);
    }

    /** A new table of {@code capacity} with every entry of {@code from} but the one at {@code address}. */
    private static Table copyWithout(final Table from, final int capacity, final long address)
    {
        final Table t = new Table(capacity);
        for (int i = 0; i < from.keys.length; i++)
        {
            if (from.keys[i] != 0 && from.keys[i] != address)
            {
                insert(t, from.keys[i], from.values[i]);
            }
        }
        return t;
    }

    private static void insert(final Table t, final long address, final NativeResource value)
    {
        final int mask = t.keys.length - 1;
        int i = slot(address, mask);
        while (t.keys[i] != 0)
        {
            i = (i + 1) & mask;
        }
        t.keys[i] = address;
        t.values[i] = value;
        t.size++;
    }

    private static int slot(final long address, final int mask)
    {
        final long h = address * 0x9E3779B97F4A7C15L; // Fibonacci hashing: malloc'd addresses share their low bits
        return (int) (h >>> 40) & mask;
    }
}
