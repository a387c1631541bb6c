// SPDX-License-Identifier: Apache-2.0
/**
 * Internals of the control path, public only so that the data-path packages of this module can use them; not for
 * applications, and not exported by the module descriptor: errno names ({@link io.mlx5j.verbs.internal.Errno}),
 * {@code dlsym(RTLD_DEFAULT)} ({@link io.mlx5j.verbs.internal.GlobalSymbols}), sized ring views
 * ({@link io.mlx5j.verbs.internal.Rings}), and the data path's way past io.mlx5j.verbs' package boundary
 * ({@link io.mlx5j.verbs.internal.VerbsAccess}: close guards, the Context lock, libibverbs objects owned outside
 * the package).
 */
package io.mlx5j.verbs.internal;
