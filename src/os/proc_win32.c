/* os/proc.h on Win32: CreateProcessW with its stdout on a pipe, in a job object that is
 * killed whole at the limit (a child's own children go with it). */
#include "os/proc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "os/clock.h"
#include "os/win32.h"

/* One argument as the MSVC runtime's parser reads it back (CommandLineToArgvW's rules):
 * quotes around, backslashes doubled only before a quote. */
static size_t quote_arg(const wchar_t *a, wchar_t *out)
{
	size_t n = 0, slashes;

	if (*a && !wcspbrk(a, L" \t\n\v\"")) {
		size_t len = wcslen(a);

		if (out)
			memcpy(out, a, len * sizeof *a);
		return len;
	}
	if (out)
		out[n] = L'"';
	n++;
	for (const wchar_t *p = a;; p++) {
		slashes = 0;
		while (*p == L'\\') {
			p++;
			slashes++;
		}
		if (!*p) {
			for (size_t i = 0; i < slashes * 2; i++, n++)
				if (out)
					out[n] = L'\\';
			break;
		}
		if (*p == L'"') {
			for (size_t i = 0; i < slashes * 2 + 1; i++, n++)
				if (out)
					out[n] = L'\\';
		} else {
			for (size_t i = 0; i < slashes; i++, n++)
				if (out)
					out[n] = L'\\';
		}
		if (out)
			out[n] = *p;
		n++;
	}
	if (out)
		out[n] = L'"';
	return n + 1;
}

static wchar_t *command_line(char *const argv[])
{
	size_t total = 1, at = 0;
	wchar_t *line = NULL;
	wchar_t **w;
	size_t argc = 0;

	while (argv[argc])
		argc++;
	if (!(w = calloc(argc + 1, sizeof *w)))
		return NULL;
	for (size_t i = 0; i < argc; i++) {
		if (!(w[i] = os_w_from_utf8(argv[i])))
			goto out;
		total += quote_arg(w[i], NULL) + 1;
	}
	if (!(line = malloc(total * sizeof *line)))
		goto out;
	for (size_t i = 0; i < argc; i++) {
		if (i)
			line[at++] = L' ';
		at += quote_arg(w[i], line + at);
	}
	line[at] = L'\0';
out:
	for (size_t i = 0; i < argc; i++)
		free(w[i]);
	free(w);
	return line;
}

int os_run_capture(char *const argv[], char *out, size_t max, size_t limit, unsigned deadline_ms,
		   struct os_run *res)
{
	SECURITY_ATTRIBUTES inherit = { sizeof inherit, NULL, TRUE };
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION kill = { 0 };
	STARTUPINFOW si = { .cb = sizeof si };
	PROCESS_INFORMATION pi = { 0 };
	HANDLE rd = NULL, wr = NULL, null = INVALID_HANDLE_VALUE, job = NULL;
	double deadline = os_monotonic_s() + deadline_ms / 1000.0;
	wchar_t *exe = NULL, *line = NULL;
	size_t got = 0, seen = 0;
	bool done = false;
	int rc = 0;

	memset(res, 0, sizeof *res);
	if (max)
		out[0] = '\0';
	if (!(exe = os_w_from_utf8(argv[0])) || !(line = command_line(argv))) {
		res->exec_errno = ENOENT;
		goto out;
	}
	if (!CreatePipe(&rd, &wr, &inherit, 0) || !SetHandleInformation(rd, HANDLE_FLAG_INHERIT, 0)) {
		rc = os_w_errno();
		goto out;
	}
	null = CreateFileW(L"NUL", GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit,
			   OPEN_EXISTING, 0, NULL);
	if (null == INVALID_HANDLE_VALUE || !(job = CreateJobObjectW(NULL, NULL))) {
		rc = os_w_errno();
		goto out;
	}
	kill.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
	SetInformationJobObject(job, JobObjectExtendedLimitInformation, &kill, sizeof kill);
	si.dwFlags = STARTF_USESTDHANDLES;
	si.hStdInput = null;
	si.hStdOutput = wr;
	si.hStdError = null;
	/* suspended until it is in the job, so nothing it starts escapes the kill */
	if (!CreateProcessW(exe, line, NULL, NULL, TRUE, CREATE_SUSPENDED | CREATE_NO_WINDOW, NULL, NULL, &si, &pi)) {
		res->exec_errno = -os_w_errno();
		goto out;
	}
	AssignProcessToJobObject(job, pi.hProcess);
	ResumeThread(pi.hThread);
	CloseHandle(wr);
	wr = NULL;
	while (!done) {
		DWORD avail = 0, r = 0;

		if (os_monotonic_s() >= deadline)
			break;
		if (!PeekNamedPipe(rd, NULL, 0, NULL, &avail, NULL)) {
			done = true; /* ERROR_BROKEN_PIPE: every writer closed it */
			break;
		}
		if (!avail) {
			Sleep(2);
			continue;
		}
		char sink[4096];
		char *dst = (max && got + 1 < max) ? out + got : sink;
		size_t room = (max && got + 1 < max) ? max - 1 - got : sizeof sink;

		if (room > avail)
			room = avail;
		if (!ReadFile(rd, dst, (DWORD)room, &r, NULL) || r == 0) {
			done = true;
			break;
		}
		if (dst != sink)
			got += r;
		if ((seen += r) > limit) {
			TerminateJobObject(job, 1);
			res->too_much = true;
			goto finish;
		}
	}
	{
		double left = deadline - os_monotonic_s();
		DWORD wait = left > 0 ? (DWORD)(left * 1000) + 1 : 0;
		DWORD code = 0;

		if (WaitForSingleObject(pi.hProcess, wait) != WAIT_OBJECT_0) {
			TerminateJobObject(job, 1);
			WaitForSingleObject(pi.hProcess, 1000);
			res->timed_out = true;
		} else if (GetExitCodeProcess(pi.hProcess, &code)) {
			res->exited = true;
			res->status = (int)code;
		}
	}
finish:
	if (max)
		out[got] = '\0';
	res->len = got;
out:
	if (pi.hProcess)
		CloseHandle(pi.hProcess);
	if (pi.hThread)
		CloseHandle(pi.hThread);
	if (job)
		CloseHandle(job);
	if (null != INVALID_HANDLE_VALUE)
		CloseHandle(null);
	if (rd)
		CloseHandle(rd);
	if (wr)
		CloseHandle(wr);
	free(exe);
	free(line);
	return rc;
}

static HANDLE watchdog_cancel, watchdog_thread;
static DWORD watchdog_ms;
static const char *watchdog_msg;

static DWORD WINAPI watchdog(LPVOID arg)
{
	DWORD n;

	(void)arg;
	if (WaitForSingleObject(watchdog_cancel, watchdog_ms) == WAIT_OBJECT_0)
		return 0;
	if (watchdog_msg)
		WriteFile(GetStdHandle(STD_ERROR_HANDLE), watchdog_msg, (DWORD)strlen(watchdog_msg), &n, NULL);
	ExitProcess(3);
}

void os_exit_after(unsigned seconds, const char *msg)
{
	if (watchdog_thread) {
		SetEvent(watchdog_cancel);
		WaitForSingleObject(watchdog_thread, INFINITE);
		CloseHandle(watchdog_thread);
		watchdog_thread = NULL;
	}
	if (!seconds)
		return;
	if (!watchdog_cancel && !(watchdog_cancel = CreateEventW(NULL, TRUE, FALSE, NULL)))
		return;
	ResetEvent(watchdog_cancel);
	watchdog_ms = seconds * 1000u;
	watchdog_msg = msg;
	watchdog_thread = CreateThread(NULL, 0, watchdog, NULL, 0, NULL);
}

static volatile sig_atomic_t *terminate_flag;

static BOOL WINAPI on_console(DWORD event)
{
	if (event == CTRL_CLOSE_EVENT || event == CTRL_BREAK_EVENT || event == CTRL_SHUTDOWN_EVENT) {
		if (terminate_flag)
			*terminate_flag = 1;
		return TRUE;
	}
	return FALSE;
}

void os_on_terminate(volatile sig_atomic_t *flag)
{
	terminate_flag = flag;
	SetConsoleCtrlHandler(on_console, TRUE);
}

unsigned os_pid(void)
{
	return (unsigned)GetCurrentProcessId();
}

void os_exit_now(int status)
{
	/* TerminateProcess does not wait for a thread inside the driver, as ExitProcess would */
	TerminateProcess(GetCurrentProcess(), (UINT)status);
}
