/* What `arch` lists of a binary's device code, as field tables: each image of its fatbins
 * (binfmt/devcode.h), each SASS kernel's resources (binfmt/cubin_attrs.h) and each AMD
 * kernel's (binfmt/amdgpu_kernels.h); the keys of docs/json.md's arch objects. */
#ifndef CUDOCTOR_FACTS_DEVCODE_H
#define CUDOCTOR_FACTS_DEVCODE_H

#include <stdbool.h>
#include <stddef.h>

#include "binfmt/amdgpu_kernels.h"
#include "binfmt/cubin_attrs.h"
#include "binfmt/devcode.h"
#include "util/field.h"

/* Image i of inv, numbered i + 1 as the listing numbers it. */
struct dc_image_ref {
	const struct dc_inventory *inv;
	size_t i;
};

/* A SASS kernel's resources with its launch dimensions as JSON writes them: [x, y, z], a
 * missing y or z 1, none when x is 0 (cubin_kernel_row_make). */
struct cubin_kernel_row {
	struct cubin_kernel_res k;   /* a shallow copy: its name is the reader's */
	long long max_threads[3], reqntid[3];
	bool has_max_threads, has_reqntid;
};

void cubin_kernel_row_make(const struct cubin_kernel_res *k, struct cubin_kernel_row *out);

/* images[] over struct dc_image_ref; resources[].kernels[] over struct cubin_kernel_row (but
 * "largest_block", a verdict); an AMD code object's kernels[] over struct amdgpu_kernel. */
extern const struct field_table dc_image_field_table, cubin_kernel_field_table, amdgpu_kernel_field_table;

#endif
