/* os/fs.h on POSIX; opens, reads and writes through os/sys.h's table. */
#include "os/fs.h"
#include "os/sys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static void fill(const struct stat *s, struct os_stat *st)
{
	memset(st, 0, sizeof *st);
	st->kind = S_ISREG(s->st_mode)	  ? OS_FILE
		   : S_ISDIR(s->st_mode)  ? OS_DIR
		   : S_ISLNK(s->st_mode)  ? OS_LINK
		   : S_ISFIFO(s->st_mode) ? OS_FIFO
		   : S_ISSOCK(s->st_mode) ? OS_SOCKET
		   : S_ISCHR(s->st_mode)  ? OS_CHARDEV
		   : S_ISBLK(s->st_mode)  ? OS_BLOCKDEV
					  : OS_OTHER;
	st->size = (unsigned long long)s->st_size;
	st->mode = (unsigned)(s->st_mode & 07777);
	st->uid = (unsigned)s->st_uid;
	st->gid = (unsigned)s->st_gid;
	st->sticky_world_writable = (s->st_mode & S_ISVTX) && (s->st_mode & S_IWOTH);
	if (S_ISCHR(s->st_mode) || S_ISBLK(s->st_mode)) {
		st->dev_major = major(s->st_rdev);
		st->dev_minor = minor(s->st_rdev);
	}
}

int os_stat(const char *path, struct os_stat *st)
{
	struct stat s;

	if (stat(path, &s) != 0)
		return -errno;
	fill(&s, st);
	return 0;
}

int os_lstat(const char *path, struct os_stat *st)
{
	struct stat s;

	if (lstat(path, &s) != 0)
		return -errno;
	fill(&s, st);
	return 0;
}

int os_fstat(int fd, struct os_stat *st)
{
	struct stat s;

	if (fstat(fd, &s) != 0)
		return -errno;
	fill(&s, st);
	return 0;
}

bool os_access(const char *path, int how)
{
	return access(path, (how & OS_EXEC ? X_OK : 0) | (how & OS_WRITE ? W_OK : 0) | (how & OS_READ ? R_OK : 0) |
				    (how ? 0 : F_OK)) == 0;
}

int os_open_read(const char *path, int *fd)
{
	int f = os_sys.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0);

	*fd = f < 0 ? -1 : f;
	return f < 0 ? f : 0;
}

static bool input_kind(const struct stat *s, int dev_major, int dev_minor)
{
	return S_ISREG(s->st_mode) || (S_ISCHR(s->st_mode) && dev_major >= 0 && major(s->st_rdev) == (unsigned)dev_major &&
				       minor(s->st_rdev) == (unsigned)dev_minor);
}

int os_open_input(const char *path, int dev_major, int dev_minor, int *fd, struct os_stat *st)
{
	const int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
	struct stat before, after;
	int f = -1, e;

	*fd = -1;
#ifdef O_PATH
	/* a handle on what path names that opens nothing: no device's driver is called */
	int handle = open(path, O_PATH | O_CLOEXEC);
	char self[48];

	if (handle < 0)
		return -errno;
	if (fstat(handle, &before) != 0) {
		e = -errno;
		close(handle);
		return e;
	}
	fill(&before, st);
	if (!input_kind(&before, dev_major, dev_minor)) {
		close(handle);
		return 0;
	}
	/* the same inode, whatever path names by now; without /proc, the path again, checked below */
	snprintf(self, sizeof self, "/proc/self/fd/%d", handle);
	f = os_sys.open(self, flags, 0);
	if (f == -ENOENT)
		f = os_sys.open(path, flags | (S_ISREG(before.st_mode) && lstat(path, &after) == 0 && S_ISREG(after.st_mode) ? O_NOFOLLOW : 0), 0);
	e = f;
	close(handle);
#else
	if (stat(path, &before) != 0)
		return -errno;
	fill(&before, st);
	if (!input_kind(&before, dev_major, dev_minor))
		return 0;
	f = os_sys.open(path, flags, 0);
	e = f;
#endif
	if (f < 0)
		return e;
	if (fstat(f, &after) != 0 || after.st_dev != before.st_dev || after.st_ino != before.st_ino ||
	    !input_kind(&after, dev_major, dev_minor)) {
		close(f);
		return -OS_ECHANGED;
	}
	fill(&after, st);
	*fd = f;
	return 0;
}

int os_open_write(const char *path, int flags, unsigned mode, int *fd)
{
	int f = O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW, r;

	if (flags & OS_W_EXCL)
		f |= O_CREAT | O_EXCL;
	if (flags & OS_W_TRUNC)
		f |= O_TRUNC;
	if (flags & OS_W_NONBLOCK)
		f |= O_NONBLOCK;
	r = os_sys.open(path, f, mode);
	*fd = r < 0 ? -1 : r;
	return r < 0 ? r : 0;
}

int os_set_blocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0)
		return -errno;
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
	return close(fd) != 0 ? -errno : 0;
}

int os_fchmod_own(int fd, unsigned mode, bool keep_owner, unsigned uid, unsigned gid)
{
	if (fchmod(fd, (mode_t)mode) != 0)
		return -errno;
	if (keep_owner && geteuid() == 0 && fchown(fd, (uid_t)uid, (gid_t)gid) != 0)
		return -errno;
	return 0;
}

int os_fsync(int fd)
{
	return fsync(fd) != 0 ? -errno : 0;
}

unsigned os_new_file_mode(void)
{
	mode_t um = umask(0);

	umask(um);
	return 0666u & ~(unsigned)um;
}

int os_mkdir(const char *path)
{
	return mkdir(path, 0777) != 0 ? -errno : 0;
}

int os_unlink(const char *path)
{
	return unlink(path) != 0 ? -errno : 0;
}

int os_rename(const char *from, const char *to)
{
	return rename(from, to) != 0 ? -errno : 0;
}

bool os_realpath(const char *path, char *out, size_t cap)
{
	char tmp[PATH_MAX];

	if (!realpath(path, tmp) || strlen(tmp) >= cap)
		return false;
	memcpy(out, tmp, strlen(tmp) + 1);
	return true;
}

bool os_getcwd(char *out, size_t cap)
{
	return getcwd(out, cap) != NULL;
}

bool os_exe_path(char *out, size_t cap)
{
	ssize_t n = cap ? readlink("/proc/self/exe", out, cap - 1) : -1;

	if (n <= 0)
		return false;
	out[n] = '\0';
	return true;
}

struct os_dir {
	DIR *d;
};

int os_dir_open(const char *path, struct os_dir **d)
{
	DIR *h = opendir(path);

	*d = NULL;
	if (!h)
		return -errno;
	if (!(*d = malloc(sizeof **d))) {
		closedir(h);
		return -ENOMEM;
	}
	(*d)->d = h;
	return 0;
}

const char *os_dir_next(struct os_dir *d)
{
	struct dirent *e;

	while ((e = readdir(d->d)))
		if (!(e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2]))))
			return e->d_name;
	return NULL;
}

void os_dir_close(struct os_dir *d)
{
	if (!d)
		return;
	closedir(d->d);
	free(d);
}

int os_redirect(int fd, int from)
{
	int null = -1, rc = 0;

	if (from < 0 && (from = null = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (dup2(from, fd) < 0)
		rc = -errno;
	if (null >= 0)
		close(null);
	return rc;
}

const char *os_last_sep(const char *path)
{
	return strrchr(path, '/');
}

bool os_is_sep(char c)
{
	return c == '/';
}

const char *os_exe_suffix(void)
{
	return "";
}

/* os_on_interrupt: the handler calls only fn (which calls unlink(2)), signal(2) and raise(3),
 * which are async-signal-safe */
static void (*volatile interrupt_fn)(void);

static void on_interrupt(int sig)
{
	if (interrupt_fn)
		interrupt_fn();
	signal(sig, SIG_DFL);
	raise(sig);
}

void os_on_interrupt(void (*fn)(void))
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	if (interrupt_fn)
		return;
	interrupt_fn = fn;
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction cur, sa;

		/* only where nothing else decided: a handler of its own (fleet's SIGTERM), or a
		 * signal ignored (a background job's SIGINT), stays */
		if (sigaction(sigs[i], NULL, &cur) != 0 || (cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL)
			continue;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_interrupt;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

static sigset_t held_from;

void os_interrupts_hold(bool hold)
{
	sigset_t set;

	if (!hold) {
		sigprocmask(SIG_SETMASK, &held_from, NULL);
		return;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &held_from);
}
