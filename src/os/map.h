/* Mapping a whole file read-only: only the pages touched are read. */
#ifndef CUDOCTOR_OS_MAP_H
#define CUDOCTOR_OS_MAP_H

#include <stdbool.h>
#include <stddef.h>

struct os_map {
	const unsigned char *data;
	size_t size;
	int guard; /* its slot in the guard against a file cut short while mapped; 0 none */
};

/* Maps size bytes of the open file fd. 0 or a negative errno. */
int os_map_fd(int fd, size_t size, struct os_map *m);
/* False when a page could not be read (the file shrank while mapped; zeros read there). */
bool os_map_intact(const struct os_map *m);
void os_unmap(struct os_map *m);
/* Gives back the pages in [p, p+len) that were read; they fault in again when read. */
void os_map_release(const void *p, size_t len);
size_t os_page_size(void);

#endif
