/* os/fs.h on Win32: the CRT's descriptors over wide-character paths, converted from UTF-8
 * here, FindFirstFileW for directories. */
#include "os/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <windows.h>

#include "os/sys.h"
#include "os/win32.h"

static enum os_kind kind_of(unsigned short mode)
{
	switch (mode & _S_IFMT) {
	case _S_IFREG:
		return OS_FILE;
	case _S_IFDIR:
		return OS_DIR;
	case _S_IFCHR:
		return OS_CHARDEV;
	case _S_IFIFO:
		return OS_FIFO;
	default:
		return OS_OTHER;
	}
}

static void fill(const struct _stat64 *s, struct os_stat *st)
{
	memset(st, 0, sizeof *st);
	st->kind = kind_of(s->st_mode);
	st->size = (unsigned long long)s->st_size;
	st->mode = (s->st_mode & _S_IWRITE) ? 0666 : 0444;
}

int os_stat(const char *path, struct os_stat *st)
{
	wchar_t *w = os_w_from_utf8(path);
	struct _stat64 s;
	size_t n;
	int rc;

	if (!w)
		return -ENOENT;
	/* the CRT's stat refuses "dir\" (all but a drive's root): as POSIX, it names the folder */
	n = wcslen(w);
	while (n > 1 && (w[n - 1] == L'\\' || w[n - 1] == L'/') && w[n - 2] != L':')
		w[--n] = L'\0';
	rc = _wstat64(w, &s) == 0 ? 0 : -errno;
	free(w);
	if (rc == 0)
		fill(&s, st);
	return rc;
}

/* A reparse point (a symlink or junction) is what lstat calls a link: walks skip it. */
int os_lstat(const char *path, struct os_stat *st)
{
	wchar_t *w = os_w_from_utf8(path);
	DWORD attrs;
	int rc;

	if (!w)
		return -ENOENT;
	attrs = GetFileAttributesW(w);
	free(w);
	if (attrs != INVALID_FILE_ATTRIBUTES && (attrs & FILE_ATTRIBUTE_REPARSE_POINT)) {
		memset(st, 0, sizeof *st);
		st->kind = OS_LINK;
		return 0;
	}
	rc = os_stat(path, st);
	return rc;
}

int os_fstat(int fd, struct os_stat *st)
{
	struct _stat64 s;

	if (_fstat64(fd, &s) != 0)
		return -errno;
	fill(&s, st);
	return 0;
}

/* Windows runs what its name says it is: an .exe, .com, .bat or .cmd file. */
static bool runnable_name(const char *path)
{
	static const char *const ext[] = { ".exe", ".com", ".bat", ".cmd" };
	size_t n = strlen(path);

	for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
		if (n > 4 && _stricmp(path + n - 4, ext[i]) == 0)
			return true;
	return false;
}

bool os_access(const char *path, int how)
{
	wchar_t *w = os_w_from_utf8(path);
	int mode = (how & OS_WRITE ? 2 : 0) | (how & OS_READ ? 4 : 0);
	bool ok;

	if (!w)
		return false;
	ok = _waccess(w, mode) == 0;
	free(w);
	if (ok && (how & OS_EXEC)) {
		struct os_stat st;

		ok = os_stat(path, &st) == 0 && st.kind == OS_FILE && runnable_name(path);
	}
	return ok;
}

int os_open_read(const char *path, int *fd)
{
	int f = os_sys.open(path, _O_RDONLY | _O_BINARY | _O_NOINHERIT, 0);

	*fd = f < 0 ? -1 : f;
	return f < 0 ? f : 0;
}

/* Windows: what the path names is looked at first (a device such as CON or a pipe is no file to
 * its stat), then looked at again once opened. dev_major and dev_minor name no Windows device. */
int os_open_input(const char *path, int dev_major, int dev_minor, int *fd, struct os_stat *st)
{
	int rc;

	(void)dev_major;
	(void)dev_minor;
	*fd = -1;
	if ((rc = os_stat(path, st)) != 0)
		return rc;
	if (st->kind != OS_FILE)
		return 0;
	if ((rc = os_open_read(path, fd)) != 0)
		return rc;
	if ((rc = os_fstat(*fd, st)) != 0 || st->kind != OS_FILE || GetFileType((HANDLE)_get_osfhandle(*fd)) != FILE_TYPE_DISK) {
		_close(*fd);
		*fd = -1;
		return rc ? rc : -OS_ECHANGED;
	}
	return 0;
}

int os_open_write(const char *path, int flags, unsigned mode, int *fd)
{
	int f = _O_WRONLY | _O_BINARY | _O_NOINHERIT, r;

	if (flags & OS_W_EXCL)
		f |= _O_CREAT | _O_EXCL;
	if (flags & OS_W_TRUNC)
		f |= _O_TRUNC;
	r = os_sys.open(path, f, (mode & 0200) ? _S_IREAD | _S_IWRITE : _S_IREAD);
	*fd = r < 0 ? -1 : r;
	return r < 0 ? r : 0;
}

int os_set_blocking(int fd)
{
	(void)fd;
	return 0;
}

long long os_read(int fd, void *buf, size_t n)
{
	long long r;

	while ((r = os_sys.read(fd, buf, n)) == -EINTR)
		;
	return r;
}

long long os_write(int fd, const void *buf, size_t n)
{
	long long r;

	while ((r = os_sys.write(fd, buf, n)) == -EINTR)
		;
	return r;
}

int os_close(int fd)
{
	return _close(fd) != 0 ? -errno : 0;
}

int os_fchmod_own(int fd, unsigned mode, bool keep_owner, unsigned uid, unsigned gid)
{
	(void)fd, (void)mode, (void)keep_owner, (void)uid, (void)gid;
	return 0; /* a new file inherits its folder's ACL, as Windows programs' files do */
}

int os_fsync(int fd)
{
	return _commit(fd) != 0 ? -errno : 0;
}

unsigned os_new_file_mode(void)
{
	return 0666;
}

static int with_path(const char *path, int (*fn)(const wchar_t *))
{
	wchar_t *w = os_w_from_utf8(path);
	int rc;

	if (!w)
		return -ENOENT;
	rc = fn(w) != 0 ? -errno : 0;
	free(w);
	return rc;
}

int os_mkdir(const char *path)
{
	return with_path(path, _wmkdir);
}

int os_unlink(const char *path)
{
	return with_path(path, _wunlink);
}

int os_rename(const char *from, const char *to)
{
	wchar_t *a = os_w_from_utf8(from), *b = os_w_from_utf8(to);
	int rc = 0;

	if (!a || !b)
		rc = -ENOENT;
	else if (!MoveFileExW(a, b, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
		rc = os_w_errno();
	free(a);
	free(b);
	return rc;
}

bool os_realpath(const char *path, char *out, size_t cap)
{
	wchar_t *w = os_w_from_utf8(path), full[32768];
	HANDLE h;
	DWORD n;
	bool ok = false;

	if (!w)
		return false;
	/* the file itself, its links resolved, as realpath(3) answers; it must exist */
	h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
			FILE_FLAG_BACKUP_SEMANTICS, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return false;
	n = GetFinalPathNameByHandleW(h, full, sizeof full / sizeof full[0], FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	CloseHandle(h);
	if (n == 0 || n >= sizeof full / sizeof full[0])
		return false;
	/* \\?\C:\x is C:\x; \\?\UNC\host\share is \\host\share */
	if (wcsncmp(full, L"\\\\?\\UNC\\", 8) == 0)
		ok = os_w_to_utf8(full + 6, out, cap) && cap > 0 && (out[0] = '\\', true);
	else if (wcsncmp(full, L"\\\\?\\", 4) == 0)
		ok = os_w_to_utf8(full + 4, out, cap);
	else
		ok = os_w_to_utf8(full, out, cap);
	return ok;
}

bool os_getcwd(char *out, size_t cap)
{
	wchar_t w[32768];
	DWORD n = GetCurrentDirectoryW(sizeof w / sizeof w[0], w);

	return n > 0 && n < sizeof w / sizeof w[0] && os_w_to_utf8(w, out, cap);
}

bool os_exe_path(char *out, size_t cap)
{
	wchar_t w[32768];
	DWORD n = GetModuleFileNameW(NULL, w, sizeof w / sizeof w[0]);

	return n > 0 && n < sizeof w / sizeof w[0] && os_w_to_utf8(w, out, cap);
}

const char *os_last_sep(const char *path)
{
	const char *a = strrchr(path, '/'), *b = strrchr(path, '\\');

	return a > b ? a : b;
}

bool os_is_sep(char c)
{
	return c == '/' || c == '\\';
}

const char *os_exe_suffix(void)
{
	return ".exe";
}

struct os_dir {
	HANDLE h;
	WIN32_FIND_DATAW data;
	bool pending; /* data holds an entry not yet returned */
	char name[MAX_PATH * 4];
};

int os_dir_open(const char *path, struct os_dir **d)
{
	size_t n = strlen(path);
	char *pattern = malloc(n + 3);
	wchar_t *w;
	int rc = 0;

	*d = NULL;
	if (!pattern)
		return -ENOMEM;
	memcpy(pattern, path, n);
	memcpy(pattern + n, n && os_is_sep(path[n - 1]) ? "*" : "\\*", n && os_is_sep(path[n - 1]) ? 2 : 3);
	w = os_w_from_utf8(pattern);
	free(pattern);
	if (!w)
		return -ENOENT;
	if (!(*d = calloc(1, sizeof **d))) {
		free(w);
		return -ENOMEM;
	}
	(*d)->h = FindFirstFileW(w, &(*d)->data);
	free(w);
	if ((*d)->h == INVALID_HANDLE_VALUE) {
		rc = GetLastError() == ERROR_FILE_NOT_FOUND ? 0 : os_w_errno();
		if (rc) {
			free(*d);
			*d = NULL;
		}
		return rc; /* an empty folder: no entries */
	}
	(*d)->pending = true;
	return 0;
}

const char *os_dir_next(struct os_dir *d)
{
	while (d->h != INVALID_HANDLE_VALUE) {
		if (!d->pending && !FindNextFileW(d->h, &d->data))
			return NULL;
		d->pending = false;
		if (wcscmp(d->data.cFileName, L".") == 0 || wcscmp(d->data.cFileName, L"..") == 0)
			continue;
		if (os_w_to_utf8(d->data.cFileName, d->name, sizeof d->name))
			return d->name;
	}
	return NULL;
}

void os_dir_close(struct os_dir *d)
{
	if (!d)
		return;
	if (d->h != INVALID_HANDLE_VALUE)
		FindClose(d->h);
	free(d);
}

int os_redirect(int fd, int from)
{
	int null = -1, rc = 0;

	if (from < 0 && (from = null = _open("NUL", _O_WRONLY | _O_BINARY | _O_NOINHERIT)) < 0)
		return -errno;
	if (_dup2(from, fd) != 0)
		rc = -errno;
	if (null >= 0)
		_close(null);
	return rc;
}

/* os_on_interrupt: Windows calls the console's handler on a thread of its own */
static void (*volatile interrupt_fn)(void);

/* the handler's thread waits while the main thread holds interruptions back */
static SRWLOCK interrupt_lock = SRWLOCK_INIT;

static BOOL WINAPI on_console_event(DWORD event)
{
	(void)event;
	AcquireSRWLockExclusive(&interrupt_lock);
	if (interrupt_fn)
		interrupt_fn();
	ReleaseSRWLockExclusive(&interrupt_lock);
	return FALSE; /* and the default: the process ends */
}

void os_interrupts_hold(bool hold)
{
	if (hold)
		AcquireSRWLockExclusive(&interrupt_lock);
	else
		ReleaseSRWLockExclusive(&interrupt_lock);
}

void os_on_interrupt(void (*fn)(void))
{
	if (interrupt_fn)
		return;
	interrupt_fn = fn;
	SetConsoleCtrlHandler(on_console_event, TRUE);
}
