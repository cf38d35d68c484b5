/* CUDA device ELF (cubin, EM_CUDA): target SM, `a` flag, toolkit note and kernel names
 * (fatbin.md §1.4). */
#ifndef CUDOCTOR_BINFMT_CUBIN_H
#define CUDOCTOR_BINFMT_CUBIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CUBIN_STO_ENTRY 0x10 /* st_other of kernel (entry) functions */

struct cubin_info {
	unsigned sm;          /* real SM, 10*major+minor */
	unsigned virtual_sm;  /* compute_XX it came from, 0 if not recorded */
	bool arch_specific;   /* sm_XXa: V1 e_flags 0x800, V2 .nv.compat attribute 9 */
	unsigned abi;         /* e_ident[EI_ABIVERSION]: 7 = V1, 8 = V2 */
	uint16_t type;        /* ET_EXEC or ET_REL */
	uint32_t e_flags;
	unsigned toolkit;     /* from .note.nv.cuinfo, e.g. 130 for 13.0; 0 if absent */
	bool has_code;        /* at least one .text.* section */
};

bool cubin_is_cubin(const unsigned char *data, size_t size);
int cubin_read(const unsigned char *data, size_t size, struct cubin_info *ci, char *err);

/* Calls fn(name, ctx) for each kernel symbol, in symbol-table order; stops at the
 * first non-zero return and passes it back. */
int cubin_kernels(const unsigned char *data, size_t size,
		  int (*fn)(const char *name, void *ctx), void *ctx, char *err);

/* Reads the accelerator attribute (0x09) of a .nv.compat record stream; false if absent. */
bool cubin_compat_says_arch_specific(const unsigned char *p, size_t len);

#endif
