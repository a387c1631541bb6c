/* SPDX-License-Identifier: Apache-2.0 */
/* mlx5emu-ctl: what the launcher's control subcommands run (`mlx5emu port DEV PORT up|down`). Linked with
 * libmlx5emu.so, whose mlx5emu_port_set changes the port in the fabric registry of MLX5EMU_FABRIC and wakes every
 * process of that fabric (src/kernel/port.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mlx5emu_port_set(int dev_index, int port, int up);

static int usage(void)
{
	fprintf(stderr, "usage: mlx5emu port DEV PORT up|down   (DEV: mlx5_N or N; the emulated devices have port 1)\n");
	return 2;
}

/* "mlx5_N" or "N" -> N, else -1 */
static int device_index(const char *s)
{
	if (strncmp(s, "mlx5_", 5) == 0)
		s += 5;
	char *end;
	long n = strtol(s, &end, 10);
	return *s && !*end && n >= 0 && n < 64 ? (int)n : -1;
}

int main(int argc, char **argv)
{
	if (argc != 5 || strcmp(argv[1], "port") != 0)
		return usage();
	int dev = device_index(argv[2]);
	char *end;
	long port = strtol(argv[3], &end, 10);
	int up = strcmp(argv[4], "up") == 0;
	if (dev < 0 || !*argv[3] || *end || (!up && strcmp(argv[4], "down") != 0))
		return usage();
	int rc = mlx5emu_port_set(dev, (int)port, up);
	if (rc) {
		fprintf(stderr, "mlx5emu port %s %s %s: %s\n", argv[2], argv[3], argv[4], strerror(rc));
		return 1;
	}
	return 0;
}
