/* indexing-2d: a 1920x1080 image covered by 16x16 blocks in a 120x68 grid. The grid
 * overhangs the image by 8 rows; with the bounds check every pixel is written once,
 * without it the overhang's writes land in a guard region the host counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/gpu.h"
#include "lab/judge.h"
#include "util/err.h"

enum { W = 1920, H = 1080, B = 16 };

static int run(struct lab_ctx *c, struct lab_result *r, char *err)
{
	int rc = CD_OK;
	CUdeviceptr img = 0, warps = 0;
	CUfunction f, fw;
	unsigned gx = (W + B - 1) / B, gy = (H + B - 1) / B;
	size_t pixels = (size_t)W * H, covered = (size_t)gx * B * gy * B;
	size_t guard = covered - pixels + (size_t)W * B; /* overhang plus a margin */
	unsigned *h = malloc((pixels + guard) * sizeof *h);
	if (!h)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	TRY(lab_fn(c, "lab_index2d", &f, err));
	TRY(lab_fn(c, "lab_index_warps", &fw, err));
	TRY(lab_alloc(c, &img, (pixels + guard) * sizeof *h, err));
	TRY(lab_alloc(c, &warps, pixels * sizeof *h, err));

	int w = W, hh = H, checked = 1;
	void *args[] = { &img, &w, &hh, &checked };
	size_t once = 0, outside = 0, guard_writes = 0, warp_errors = 0;
	for (int pass = 0; pass < 2; pass++) {
		checked = pass == 0;
		TRY(lab_cu(c, c->d->MemsetD32(img, 0, pixels + guard), "cuMemsetD32", err));
		TRY(lab_launch(c, f, gx, gy, B, B, 0, args, err));
		TRY(lab_sync(c, err));
		TRY(lab_cu(c, c->d->MemcpyDtoH(h, img, (pixels + guard) * sizeof *h), "cuMemcpyDtoH", err));
		if (pass == 0) {
			for (size_t i = 0; i < pixels; i++)
				once += h[i] == 1;
			for (size_t i = pixels; i < pixels + guard; i++)
				outside += h[i];
		} else {
			for (size_t i = pixels; i < pixels + guard; i++)
				guard_writes += h[i];
		}
	}
	TRY(lab_cu(c, c->d->MemsetD32(warps, 0xFFFFFFFFu, pixels), "cuMemsetD32", err));
	void *wargs[] = { &warps, &w, &hh };
	TRY(lab_launch(c, fw, gx, gy, B, B, 0, wargs, err));
	TRY(lab_sync(c, err));
	TRY(lab_cu(c, c->d->MemcpyDtoH(h, warps, pixels * sizeof *h), "cuMemcpyDtoH", err));
	for (size_t y = 0; y < H; y++)
		for (size_t x = 0; x < W; x++) {
			unsigned lin = (unsigned)((y % B) * B + (x % B));
			unsigned v = h[y * W + x];
			if ((v & 0xFF) != lin % 32 || (v >> 8) != lin - lin % 32)
				warp_errors++;
		}
	if (outside)
		r->wrong_result = true;
	snprintf(r->setup, sizeof r->setup,
		 "%dx%d image, %dx%d blocks, grid %ux%u = %zu threads for %zu pixels; each thread atomically counts its "
		 "write; run with and without `if (x < w && y < h)`", W, H, B, B, gx, gy, covered, pixels);
	lab_add(r, "", (double)pixels, "pixels");
	lab_add(r, "", (double)once, "written exactly once (checked)");
	lab_add(r, "", (double)outside, "writes outside the image (checked)");
	lab_add(r, "", (double)guard_writes, "writes outside the image (unchecked)");
	lab_add(r, "", (double)(covered - pixels), "threads past the edge");
	lab_add(r, "", (double)warp_errors, "threads not in warp = linear id / 32");
	judge_index2d(r, pixels, once, guard_writes, covered - pixels, warp_errors);
out:
	free(h);
	lab_free(c, &img);
	lab_free(c, &warps);
	return rc;
}

const struct lab lab_index2d = {
	.name = "indexing-2d",
	.concept = "thread hierarchy: 2-D grids, bounds checks, warps inside a 2-D block",
	.measures = "writes per pixel with and without the bounds check; warp membership",
	.claim = "a 120x68 grid of 16x16 blocks writes every pixel of a 1920x1080 image exactly once when each thread "
		 "checks its bounds; without the check, the 15360 threads of the last row of blocks write past the "
		 "image; warps are formed from consecutive linear thread ids (x fastest)",
	.lesson = "Round the grid up and guard every access with `if (x < width && y < height)`: the last blocks "
		  "always overhang unless the size divides evenly. A 16x16 block's warp is two rows of 16 pixels.",
	.run = run,
};
