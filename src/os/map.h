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

/* size bytes of private zero-filled memory; a page costs memory only once it is touched. */
int os_zero_map(size_t size, void **p);
void os_zero_unmap(void *p, size_t size);
/* vec[i] bit 0: whether page i (of os_page_size) of [p, p + size) of an os_zero_map is in
 * memory, i.e. was touched. -ENOSYS where the OS cannot tell. */
int os_pages_resident(void *p, size_t size, unsigned char *vec);

#endif
