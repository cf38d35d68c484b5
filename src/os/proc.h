/* Running a child program with a time limit, and ending this process on a watchdog. */
#ifndef CUDOCTOR_OS_PROC_H
#define CUDOCTOR_OS_PROC_H

#include <stdbool.h>
#include <signal.h>
#include <stddef.h>

struct os_run {
	bool timed_out;     /* not finished at the limit: it (and its group or job) was killed */
	bool too_much;      /* printed more than its limit: killed */
	int exec_errno;     /* could not start: why */
	bool exited;        /* ended by exit, with status */
	int status;         /* exit status, or 128 + signal */
	size_t len;         /* bytes kept in out */
};

/* Runs argv[0] (a path: no search, no shell) with stdin and stderr on the null device and
 * stdout captured: at most max-1 bytes kept in out (NUL-terminated), at most limit bytes read
 * before it is killed, and killed with its children at deadline_ms. 0, or a negative errno
 * when it could not even be started (a pipe, fork). */
int os_run_capture(char *const argv[], char *out, size_t max, size_t limit, unsigned deadline_ms,
		   struct os_run *res);

/* After seconds, writes msg to stderr and ends the process with status 3; 0 cancels. One
 * watchdog at a time. */
void os_exit_after(unsigned seconds, const char *msg);
/* Ends the process now with status, from any thread, without running exit handlers or
 * waiting for the other threads (one may be stuck inside a driver call); the caller flushes
 * what it printed. */
void os_exit_now(int status);
/* The flag set when the process is asked to end (SIGTERM, a console close). */
void os_on_terminate(volatile sig_atomic_t *flag);

unsigned os_pid(void);

#endif
