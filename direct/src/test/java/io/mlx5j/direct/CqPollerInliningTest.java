// SPDX-License-Identifier: Apache-2.0
package io.mlx5j.direct;

import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.attribute.CodeAttribute;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The batch poll must stay a call in the caller's loop (see {@link CqPoller#poll(Completions, int)}): C2 inlines a
 * hot callee of up to FreqInlineSize bytecodes (325 on x86-64 in JDK 25), so its bytecode must stay above that.
 * The single poll is the opposite case (its posts and polls gain from inlining) and is not checked here.
 */
class CqPollerInliningTest
{
    /** C2's FreqInlineSize default on x86-64 (globals_x86.hpp, JDK 25). */
    private static final int FREQ_INLINE_SIZE = 325;

    @Test
    void batchPollStaysAboveTheHotInliningLimit() throws IOException
    {
        final int length = codeLength("poll", "(Lio/mlx5j/direct/Completions;I)I");
        assertTrue(length > FREQ_INLINE_SIZE, "CqPoller.poll(Completions, int) is " + length +
            " bytecodes: at or below " + FREQ_INLINE_SIZE + " C2 may inline it into the caller's loop, where the" +
            " 16-frame raw receive measured 26-28 ns against 19-21; keep the dispatch written out");
    }

    private static int codeLength(final String name, final String descriptor) throws IOException
    {
        final ClassModel model;
        try (InputStream in = CqPoller.class.getResourceAsStream("CqPoller.class"))
        {
            assertNotNull(in, "CqPoller.class not found");
            model = ClassFile.of().parse(in.readAllBytes());
        }
        for (final MethodModel m : model.methods())
        {
            if (m.methodName().equalsString(name) && m.methodType().equalsString(descriptor))
            {
                return m.findAttribute(Attributes.code())
                    .map(CodeAttribute::codeLength).orElseThrow();
            }
        }
        throw new AssertionError("CqPoller has no method " + name + descriptor);
    }
}
