/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A minimal HotSpot disassembler plugin (hsdis) over the capstone library, so that JMH's -prof perfasm and
 * -XX:+PrintAssembly show x86-64 instructions. Built and used by bench/profile.sh only: nothing in mlx5j loads it.
 *
 * HotSpot calls decode_instructions_virtual() with a code buffer and two callbacks; for every instruction it expects
 * an "insn" event carrying the instruction's address, the text through the printf callback, then an "/insn" event
 * carrying the address just past it (the contract of the hsdis.h header in the JDK's src/utils/hsdis). The
 * return value is the address where decoding stopped.
 */
#include <capstone/capstone.h>
#include <stddef.h>
#include <stdint.h>

typedef void *(*event_callback_t)(void *stream, const char *event, void *arg);
typedef int (*printf_callback_t)(void *stream, const char *format, ...);

void *decode_instructions_virtual(uintptr_t start_va, uintptr_t end_va, unsigned char *buffer, uintptr_t length,
				  event_callback_t event, void *event_stream, printf_callback_t print,
				  void *print_stream, const char *options, int newline);

void *decode_instructions_virtual(uintptr_t start_va, uintptr_t end_va, unsigned char *buffer, uintptr_t length,
				  event_callback_t event, void *event_stream, printf_callback_t print,
				  void *print_stream, const char *options, int newline)
{
	(void)end_va;
	(void)options;
	csh handle;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK)
		return NULL;
	cs_insn *insn;
	size_t count = cs_disasm(handle, buffer, length, start_va, 0, &insn);
	uintptr_t end = start_va;
	for (size_t i = 0; i < count; i++) {
		event(event_stream, "insn", (void *)(uintptr_t)insn[i].address);
		print(print_stream, "%s\t%s", insn[i].mnemonic, insn[i].op_str);
		end = (uintptr_t)(insn[i].address + insn[i].size);
		event(event_stream, "/insn", (void *)end);
		if (newline)
			print(print_stream, "\n");
	}
	if (count > 0)
		cs_free(insn, count);
	cs_close(&handle);
	return (void *)end;
}
