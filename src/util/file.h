/* Read-only access to input files: whole-file mappings for parsers, bounded text reads. */
#ifndef CUDOCTOR_FILE_H
#define CUDOCTOR_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "os/map.h"

struct mapped_file {
	const unsigned char *data; /* NULL for an empty file */
	size_t size;
	struct os_map map;         /* private: the mapping (os/map.h) */
	unsigned char *copy;       /* private: the bytes read instead, where no map could be made */
};

/* Opens an input for reading, regular files only (os_open_input): what the path names is
 * looked at before it is opened, so a FIFO, socket, device or directory is refused with a
 * message naming what it is without being opened (opening a device can act: a watchdog), and
 * the file opened is the one looked at, not one swapped in meanwhile ("changed while it was
 * opened"). *size is the file's size. Every input is opened here. */
int file_open_input(const char *path, int *fd, size_t *size, char *err);

/* Maps path read-only (through file_open_input); where the map fails (a file system
 * without mmap, no address space left) the file is read into memory instead. A file another process truncates while it
 * is mapped reads as zeros past its new end (os/map_posix.c's SIGBUS guard), and the caller
 * asks file_map_intact before trusting the result. Reading small inputs instead would leave
 * the large ones (model files, libraries of hundreds of MB) unguarded. */
int file_map(const char *path, struct mapped_file *mf, char *err);
/* False when some page of the mapping could not be read: the file shrank while it was
 * mapped, and what was parsed holds zeros where its bytes were. */
bool file_map_intact(const struct mapped_file *mf);
void file_unmap(struct mapped_file *mf);
/* Gives back the pages of mf this process has read (they stay in the page cache and fault in
 * again when read): tearing down a large file's page tables is as slow as reading its headers
 * was, so a reader that is done with most of a file does it where it has time to spare. */
void file_map_drop_pages(const struct mapped_file *mf);

/* Reads at most max bytes of a small text file, NUL-terminated (through file_open_input). */
int file_read_text(const char *path, size_t max, char **out, size_t *len, char *err);

/* Reads at most max bytes of a kernel record device such as /dev/kmsg (or a regular file laid
 * out in its place), NUL-terminated: only a regular file or the kernel's own log device
 * (character device 1:11), looked at before it is opened; opened without blocking, read until the device has no
 * more records, the end of a file, or max; records the kernel overwrote while they were read
 * are skipped. A device that cannot be opened is CD_ENOTFOUND (missing) or CD_EIO, with the
 * system's errno in *sys_errno (EACCES/EPERM: the kernel restricts its log). */
int file_read_records(const char *path, size_t max, char **out, size_t *len, int *sys_errno, char *err);

/* "a directory", "a FIFO (named pipe)", "a character device", ...: what a kind (enum
 * os_kind, os/fs.h) that is not a regular file is, for messages. */
const char *file_kind_name(int kind);

/* err past the "PATH: " that the messages of file_open_input, file_map and file_read_text
 * start with (PATH as cd_fail made it safe text), for a caller that names the file itself;
 * err whole when it does not start so. */
const char *file_error_reason(const char *path, const char *err);

bool path_is_file(const char *path);
bool path_is_dir(const char *path);

#endif
