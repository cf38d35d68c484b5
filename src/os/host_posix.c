/* os/host.h on Linux (glibc). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity */
#endif
#include "os/host.h"

#include <gnu/libc-version.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/utsname.h>
#include <unistd.h>

#define MAX_CPUS 4096

bool os_hostname(char *out, size_t cap)
{
	if (!cap)
		return false;
	memset(out, 0, cap);
	if (gethostname(out, cap - 1) != 0 || !out[0]) {
		out[0] = '\0';
		return false;
	}
	return true;
}

void os_kernel(char *kernel, size_t kcap, char *machine, size_t mcap)
{
	struct utsname u;

	if (kcap)
		kernel[0] = '\0';
	if (mcap)
		machine[0] = '\0';
	if (uname(&u) != 0)
		return;
	snprintf(kernel, kcap, "%.40s %.100s", u.sysname, u.release);
	snprintf(machine, mcap, "%.30s", u.machine);
}

void os_libc_version(char *out, size_t cap)
{
	snprintf(out, cap, "%s", gnu_get_libc_version());
}

bool os_process_cpus(void (*add)(int cpu, void *arg), void *arg)
{
	cpu_set_t *set = CPU_ALLOC(MAX_CPUS);
	size_t size = CPU_ALLOC_SIZE(MAX_CPUS);
	bool ok;

	if (!set)
		return false;
	CPU_ZERO_S(size, set);
	ok = sched_getaffinity(0, size, set) == 0;
	for (int c = 0; ok && c < MAX_CPUS; c++)
		if (CPU_ISSET_S((size_t)c, size, set))
			add(c, arg);
	CPU_FREE(set);
	return ok;
}

uint64_t os_random_seed(void)
{
	const unsigned char *r = (const unsigned char *)getauxval(AT_RANDOM);
	uint64_t seed = 0;

	if (r)
		memcpy(&seed, r + 8, sizeof seed);
	return seed;
}

bool os_is_linux(void)
{
	return true;
}

const char *os_name(void)
{
	return "Linux";
}

bool os_is_admin(void)
{
	return geteuid() == 0;
}

unsigned os_uid(void)
{
	return (unsigned)geteuid();
}

size_t os_groups(unsigned *gids, size_t max)
{
	gid_t g[256];
	int n = getgroups(256, g);
	size_t k = 0;
	if (n < 0)
		n = 0;
	for (int i = 0; i < n && k < max; i++)
		gids[k++] = (unsigned)g[i];
	if (k < max)
		gids[k++] = (unsigned)getegid();
	return k;
}
