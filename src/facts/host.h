/* What a shared report says about the machine it came from: OS, kernel, C library, CPU,
 * host name, the node name fleets group by, and when. probe/host.c fills it. */
#ifndef CUDOCTOR_FACTS_HOST_H
#define CUDOCTOR_FACTS_HOST_H

struct host_facts {
	char os[128];         /* /etc/os-release PRETTY_NAME ("Ubuntu 24.04.2 LTS"), else NAME VERSION */
	char os_id[64];       /* ID ("ubuntu") */
	char os_version[64];  /* VERSION_ID ("24.04") */
	char kernel[160];     /* uname: sysname release ("Linux 6.8.0-51-generic") */
	char machine[32];     /* uname: machine ("x86_64") */
	char glibc[32];       /* gnu_get_libc_version() */
	char cpu[128];        /* /proc/cpuinfo "model name" (or "Model", arm64) */
	char hostname[256];
	char node[256];       /* $CUDOCTOR_NODE, else the host name */
	char date[32];        /* UTC, ISO 8601: 2025-06-01T12:00:00Z ($SOURCE_DATE_EPOCH when set) */
};

#endif
