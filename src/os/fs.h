/* Files and directories by path (UTF-8 on every platform): what the probes, readers and
 * writers ask of the file system. Functions that act return 0 or a negative errno. */
#ifndef CUDOCTOR_OS_FS_H
#define CUDOCTOR_OS_FS_H

#include <stdbool.h>
#include <stddef.h>

enum os_kind {
	OS_FILE,
	OS_DIR,
	OS_LINK,
	OS_FIFO,
	OS_SOCKET,
	OS_CHARDEV,
	OS_BLOCKDEV,
	OS_OTHER,
};

struct os_stat {
	enum os_kind kind;
	unsigned long long size;
	unsigned mode;  /* permission bits (07777); 0666 or 0444 where the OS has none */
	unsigned uid, gid;
	bool sticky_world_writable; /* a directory such as /tmp: anyone may create, only owners remove */
	unsigned dev_major, dev_minor; /* a character or block device's number; 0 otherwise */
};

int os_stat(const char *path, struct os_stat *st);  /* follows a symlink */
int os_lstat(const char *path, struct os_stat *st); /* a symlink is OS_LINK */
int os_fstat(int fd, struct os_stat *st);

/* Whether path exists (OS_EXISTS) or this process may read, write or run it. */
enum { OS_EXISTS = 0, OS_EXEC = 1, OS_WRITE = 2, OS_READ = 4 };
bool os_access(const char *path, int how);

/* Opens an input named by path (links followed) to read, as os_open_read, only when it is a
 * regular file or the character device dev_major:dev_minor (-1: none): what path names is
 * looked at before anything is opened (opening some devices has effects: a watchdog armed), and
 * the file opened is the very one looked at, not one swapped in meanwhile (POSIX: an O_PATH
 * handle reopened through /proc/self/fd, else device and inode compared). st is filled either
 * way; *fd is -1 when st says it is something else. A negative errno on failure, -OS_ECHANGED
 * when the file changed while it was opened. */
enum { OS_ECHANGED = 10000 }; /* no errno: not every C library has ESTALE */
int os_open_input(const char *path, int dev_major, int dev_minor, int *fd, struct os_stat *st);
/* Opens a file to read, in binary, never blocking on a FIFO with no writer and never
 * becoming the controlling terminal; not inherited by children. */
int os_open_read(const char *path, int *fd);

/* Opens to write: OS_W_EXCL creates a file only this call made (no link followed, mode
 * given), else an existing target is opened in place (OS_W_TRUNC empties it,
 * OS_W_NONBLOCK: a FIFO with no reader fails with -ENXIO instead of waiting). */
enum { OS_W_EXCL = 1, OS_W_TRUNC = 2, OS_W_NONBLOCK = 4 };
int os_open_write(const char *path, int flags, unsigned mode, int *fd);
int os_set_blocking(int fd);

/* Bytes read or written (0 at the end), or a negative errno; EINTR is retried. */
long long os_read(int fd, void *buf, size_t n);
long long os_write(int fd, const void *buf, size_t n);
int os_close(int fd);
/* Gives the file the mode and, where keep_owner and this process may, the owner. */
int os_fchmod_own(int fd, unsigned mode, bool keep_owner, unsigned uid, unsigned gid);
int os_fsync(int fd);
/* The mode a new file gets (0666 less the umask). */
unsigned os_new_file_mode(void);

int os_mkdir(const char *path);  /* -EEXIST when something is there */
int os_unlink(const char *path);
/* Calls fn when the process is interrupted (Ctrl-C, SIGTERM, SIGHUP, a console closed),
 * before it ends as the interruption would end it; one fn per process, the first given. fn
 * may run in a signal handler: it calls only os_unlink and reads only what it set up before.
 * A signal some other part handles or ignores is left to it. */
void os_on_interrupt(void (*fn)(void));
/* Holds the interruption back (hold true) until released (hold false), so that creating a
 * file and listing it for fn is one step: an interruption between the two would leave the
 * file behind. Not nested. */
void os_interrupts_hold(bool hold);
int os_rename(const char *from, const char *to); /* replaces to */
bool os_realpath(const char *path, char *out, size_t cap);
bool os_getcwd(char *out, size_t cap);
bool os_exe_path(char *out, size_t cap); /* this program's own file */
/* The last folder separator in path ('/', and '\\' on Windows), or NULL. */
const char *os_last_sep(const char *path);
bool os_is_sep(char c);
/* What a program's file name ends in where the name alone does not run: ".exe" on Windows,
 * "" on POSIX. */
const char *os_exe_suffix(void);

/* A directory's entries, "." and ".." left out. */
struct os_dir;
int os_dir_open(const char *path, struct os_dir **d);
const char *os_dir_next(struct os_dir *d); /* NULL at the end */
void os_dir_close(struct os_dir *d);

/* The process's standard streams as descriptors. */
enum { OS_STDIN = 0, OS_STDOUT = 1, OS_STDERR = 2 };
/* Points fd (a standard stream) at what from is, or at the null device for from -1. */
int os_redirect(int fd, int from);

#endif
