/* Read-only access to input files: whole-file mappings for parsers, bounded text reads. */
#ifndef CUDOCTOR_FILE_H
#define CUDOCTOR_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct mapped_file {
	const unsigned char *data; /* NULL for an empty file */
	size_t size;
	void *map_base;            /* private: what to munmap */
	size_t map_size;
};

/* Opens an input for reading, regular files only: opened without blocking (a FIFO with no
 * writer cannot hang the tool), then fstat'ed; a FIFO, socket, device or directory is
 * refused with a message naming what it is. *size is the file's size. Every input is
 * opened here. */
int file_open_input(const char *path, int *fd, size_t *size, char *err);

/* Maps path read-only (through file_open_input). */
int file_map(const char *path, struct mapped_file *mf, char *err);
void file_unmap(struct mapped_file *mf);

/* Reads at most max bytes of a small text file, NUL-terminated (through file_open_input). */
int file_read_text(const char *path, size_t max, char **out, size_t *len, char *err);

/* "a directory", "a FIFO (named pipe)", "a character device", ...: what a mode that is not a
 * regular file is, for messages. */
const char *file_kind_name(mode_t mode);

bool path_is_file(const char *path);
bool path_is_dir(const char *path);

#endif
