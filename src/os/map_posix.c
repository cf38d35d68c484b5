/* os/map.h on POSIX: mmap, with a SIGBUS guard.
 *
 * A mapped file that another process truncates while it is read would raise SIGBUS at the
 * first page past its new end. Every mapping is registered with a SIGBUS handler instead:
 * such a fault maps a page of zeros over the missing one and marks the mapping, the parser
 * reads zeros (which every parser here survives: they are fuzzed on arbitrary bytes) and
 * the caller asks os_map_intact before trusting the result. */
#include "os/map.h"
#include "os/sys.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define GUARD_SLOTS 64

static struct guard_slot {
	volatile uintptr_t lo, hi; /* [lo, hi) mapped; hi 0: free */
	volatile sig_atomic_t hit;
} guards[GUARD_SLOTS];
static struct sigaction previous_bus;
static uintptr_t guard_page = 4096; /* read once outside the handler: sysconf is not signal-safe */

size_t os_page_size(void)
{
	long pg = sysconf(_SC_PAGESIZE);

	return pg > 0 ? (size_t)pg : 4096;
}

/* Not ours: what was there before decides (a sanitizer's handler, or the default that ends
 * the process with SIGBUS when the faulting access runs again). */
static void pass_on(int sig, siginfo_t *si, void *ctx)
{
	if ((previous_bus.sa_flags & SA_SIGINFO) && previous_bus.sa_sigaction) {
		previous_bus.sa_sigaction(sig, si, ctx);
		return;
	}
	if (previous_bus.sa_handler != SIG_DFL && previous_bus.sa_handler != SIG_IGN) {
		previous_bus.sa_handler(sig);
		return;
	}
	signal(sig, SIG_DFL);
}

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	uintptr_t a = (uintptr_t)si->si_addr, page = guard_page;

	for (size_t i = 0; i < GUARD_SLOTS; i++) {
		if (!guards[i].hi || a < guards[i].lo || a >= guards[i].hi)
			continue;
		/* zeros where the file's bytes were: the access runs again and reads them */
		if (mmap((void *)(a & ~(page - 1)), (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			 -1, 0) == MAP_FAILED)
			break;
		guards[i].hit = 1;
		return;
	}
	pass_on(sig, si, ctx);
}

static int guard_add(const void *base, size_t size)
{
	struct sigaction cur;

	/* installed once, and again whenever someone replaced it since (a test harness that
	 * restores its own handlers after each test) */
	if (sigaction(SIGBUS, NULL, &cur) != 0)
		return 0;
	if (!(cur.sa_flags & SA_SIGINFO) || cur.sa_sigaction != on_sigbus) {
		struct sigaction sa;

		guard_page = (uintptr_t)os_page_size();
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_sigbus;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGBUS, &sa, &previous_bus) != 0)
			return 0;
	}
	for (size_t i = 0; i < GUARD_SLOTS; i++)
		if (!guards[i].hi) {
			guards[i].hit = 0;
			guards[i].lo = (uintptr_t)base;
			guards[i].hi = (uintptr_t)base + size;
			return (int)i + 1;
		}
	return 0; /* more mappings open at once than slots: this one goes unguarded */
}

int os_map_fd(int fd, size_t size, struct os_map *m)
{
	void *p = NULL;
	int e;

	memset(m, 0, sizeof *m);
	if (size == 0)
		return 0;
	if ((e = os_sys.map(fd, size, &p)) != 0)
		return e;
	m->data = p;
	m->size = size;
	m->guard = guard_add(p, size);
	return 0;
}

bool os_map_intact(const struct os_map *m)
{
	return !m->guard || !guards[m->guard - 1].hit;
}

void os_unmap(struct os_map *m)
{
	if (m->guard) {
		guards[m->guard - 1].hi = 0;
		guards[m->guard - 1].lo = 0;
	}
	if (m->data)
		munmap((void *)m->data, m->size);
	memset(m, 0, sizeof *m);
}

void os_map_release(const void *p, size_t len)
{
	size_t page = os_page_size();
	uintptr_t lo = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
	uintptr_t hi = ((uintptr_t)p + len) & ~(uintptr_t)(page - 1);

	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

int os_zero_map(size_t size, void **p)
{
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (m == MAP_FAILED)
		return -errno;
#ifdef MADV_NOHUGEPAGE
	/* a huge page would make every touched page cost 2 MiB */
	(void)madvise(m, size, MADV_NOHUGEPAGE);
#endif
	*p = m;
	return 0;
}

void os_zero_unmap(void *p, size_t size)
{
	if (p)
		munmap(p, size);
}

int os_pages_resident(void *p, size_t size, unsigned char *vec)
{
	return mincore(p, size, vec) == 0 ? 0 : -errno;
}
