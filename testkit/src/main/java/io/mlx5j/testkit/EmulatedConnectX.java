// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.testkit;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A JUnit 5 test (class or method) that runs on the emulated ConnectX, with the device it asks for:
 * <pre>
 * &#64;EmulatedConnectX(link = "eth", devices = 1, strict = true)
 * class MySendTest { &#64;Test void sends(EmulatedConnectXExtension.Device device) { ... } }
 * </pre>
 * The emulator must be in the test JVM from its start ({@code LD_PRELOAD}), which no extension can arrange once the
 * JVM runs; so {@link EmulatedConnectXExtension} checks, and fails with the exact surefire block to add when it is
 * missing or configured for another device (docs/testkit.md). With {@code strict}, a driver-rule violation the
 * emulator's engine reports during a test fails that test with the emulator's message (QP, WQE index, rule).
 *
 * <p>Thread model: read by JUnit through {@link EmulatedConnectXExtension}.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@ExtendWith(EmulatedConnectXExtension.class)
public @interface EmulatedConnectX
{
    /** {@return the link layer of the ports: "ib" (InfiniBand) or "eth" (Ethernet: RoCE and raw packet QPs)} */
    String link() default "ib";

    /** {@return how many devices the emulated host has (mlx5_0, mlx5_1, ...)} */
    int devices() default 1;

    /**
     * Strict mode (MLX5EMU_STRICT=1): every driver-rule violation fails the test that caused it.
     *
     * @return whether strict mode is asked for
     */
    boolean strict() default true;
}
