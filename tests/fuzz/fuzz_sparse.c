/* libFuzzer harness: the sparse keep of a streamed member (binfmt/sparse.c). The input is fed
 * as a member in chunks of one to four pages (its first byte picks the step), then the kept copy
 * is read as arch reads it: dc_scan of every kind, each image's bytes, whose pages it reads
 * wanted and fetched by a second pass as cmd/arch/member.c fetches them. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "binfmt/devcode.h"
#include "binfmt/sparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void feed(struct sparse_keep *k, const uint8_t *data, size_t size, size_t step, bool first)
{
	sparse_pass(k, first);
	for (size_t at = 0; at < size; at += step)
		if (sparse_feed(k, data + at, size - at < step ? size - at : step))
			return;
}

static void read_all(unsigned char *map, size_t size)
{
	static const unsigned opts[] = { 0, DC_SCAN_ALL_SECTIONS, DC_SCAN_IF_CUDA, DC_READ_ELF,
					 DC_SCAN_ALL_SECTIONS | DC_SCAN_EVERY_SECTION };
	char err[256];

	for (size_t o = 0; o < sizeof opts / sizeof opts[0]; o++) {
		struct dc_inventory inv;
		dc_init(&inv);
		if (dc_scan(&inv, map, size, opts[o], err) == 0)
			for (size_t i = 0; i < inv.n_images; i++) {
				unsigned char *buf = NULL;
				size_t len = 0;
				(void)dc_image_bytes(&inv, &inv.images[i], (size_t)1 << 20, &buf, &len, err);
				free(buf);
			}
		dc_free(&inv);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const marks[] = { "Cuda compilation tools, release ", "libcudart_static_", NULL };
	struct sparse_keep k;
	size_t step = size ? SPARSE_PAGE * (1 + data[0] % 4) : SPARSE_PAGE;
	unsigned char *map;

	if (size == 0 || !(map = calloc(1, size)))
		return 0;
	if (sparse_init(&k, map, size, marks) == 0) {
		feed(&k, data, size, step, true);
		read_all(map, size);
		/* a later pass copies only what is wanted: every page here */
		(void)sparse_want(&k, 0, size);
		feed(&k, data, size, step, false);
		if (memcmp(map, data, size) != 0)
			abort(); /* a page wanted and passed is a page kept */
		read_all(map, size);
	}
	sparse_free(&k);
	free(map);
	return 0;
}
