/* This host's identity: its name, kernel, C library, CPUs, and a per-process secret. */
#ifndef CUDOCTOR_OS_HOST_H
#define CUDOCTOR_OS_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* false when unknown; out is then "" */
bool os_hostname(char *out, size_t cap);
/* "Linux 6.1.0-18-amd64", "Windows 10.0.22631"; and "x86_64" */
void os_kernel(char *kernel, size_t kcap, char *machine, size_t mcap);
/* "2.36" (glibc), "ucrt" ...; "" when unknown */
void os_libc_version(char *out, size_t cap);
/* The CPUs this process may run on, each passed to add; false when the OS cannot say. */
bool os_process_cpus(void (*add)(int cpu, void *arg), void *arg);
/* 64 bits the kernel gave this process at random (for hash seeds); 0 when none. */
uint64_t os_random_seed(void);
/* Whether this is the platform every command runs on (Linux); topo and fleet need it. */
bool os_is_linux(void);
/* "Linux", "Windows": for messages */
const char *os_name(void);
bool os_is_admin(void); /* root, or an elevated Windows process */
unsigned os_uid(void);
/* The groups this process is in (its supplementary groups and its own): up to max into gids,
 * how many; 0 where the OS has none (Windows). */
size_t os_groups(unsigned *gids, size_t max);

#endif
