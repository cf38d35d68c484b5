/* Read-only access to input files: whole-file mappings for parsers, bounded text reads. */
#ifndef CUDOCTOR_FILE_H
#define CUDOCTOR_FILE_H

#include <stdbool.h>
#include <stddef.h>

struct mapped_file {
	const unsigned char *data; /* NULL for an empty file */
	size_t size;
	void *map_base;            /* private: what to munmap */
	size_t map_size;
};

/* Maps path read-only. A directory, device or unreadable file is an error
 * naming the path. */
int file_map(const char *path, struct mapped_file *mf, char *err);
void file_unmap(struct mapped_file *mf);

/* Reads at most max bytes of a small text file, NUL-terminated. */
int file_read_text(const char *path, size_t max, char **out, size_t *len, char *err);

bool path_is_file(const char *path);
bool path_is_dir(const char *path);

#endif
