/* Per-kernel resources a cubin records (what `cuobjdump --dump-resource-usage` shows):
 * registers, static shared, local (stack frame), constant banks and launch bounds, from the
 * .nv.info / .nv.info.<kernel> attribute streams and the per-kernel section sizes. */
#ifndef CUDOCTOR_BINFMT_CUBIN_ATTRS_H
#define CUDOCTOR_BINFMT_CUBIN_ATTRS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Attribute ids of the .nv.info records this parser reads (EIATTR_*). */
#define EIATTR_MAX_THREADS 0x05    /* __launch_bounds__ maxThreadsPerBlock: {x, y, z} */
#define EIATTR_REQNTID 0x10        /* PTX .reqntid: {x, y, z} */
#define EIATTR_FRAME_SIZE 0x11     /* {symbol, bytes}: per-thread stack frame (local memory) */
#define EIATTR_MIN_STACK_SIZE 0x12 /* {symbol, bytes} */
#define EIATTR_MAXREG_COUNT 0x1b   /* register cap (maxrregcount, __maxnreg__, launch bounds); 0xff: none */
#define EIATTR_CRS_STACK_SIZE 0x1e /* call-return stack bytes (pre-Volta targets) */
#define EIATTR_REGCOUNT 0x2f       /* {symbol, registers per thread} */

struct cubin_kernel_res {
	char *name;                 /* owned; as util/safetext.h makes it (printed, put in JSON) */
	unsigned registers;         /* per thread; 0 when not recorded */
	bool has_registers;
	unsigned max_threads[3];    /* __launch_bounds__ (EIATTR_MAX_THREADS); 0 when none */
	unsigned reqntid[3];        /* required block shape (EIATTR_REQNTID); 0 when none */
	unsigned maxreg;            /* register cap (EIATTR_MAXREG_COUNT); 0 when none */
	uint64_t frame_bytes;       /* local memory per thread (stack frame, spills included) */
	uint64_t min_stack_bytes;
	uint64_t crs_stack_bytes;
	uint64_t static_shared;     /* what the kernel declares (ptxas's "bytes smem") */
	uint64_t reserved_shared;   /* the window sm_90+ cubins put in front of it */
	uint64_t param_bytes;       /* constant bank 0: the kernel's parameters and driver data */
	uint64_t kernel_const;      /* other per-kernel constant banks (.nv.constantN.<kernel>) */
};

struct cubin_resources {
	unsigned sm;                /* 10*major+minor of the cubin */
	uint64_t module_const;      /* module-wide constant banks (__constant__ data: .nv.constantN) */
	struct cubin_kernel_res *k; /* entry functions, in symbol-table order */
	size_t n;
};

/* Fills out from a cubin (EM_CUDA ELF). Every offset and size is checked against the
 * buffer; a record that runs past its section is CD_EFORMAT naming the section and the
 * offset. CD_ENOMEM when out of memory. out is freed on error. */
int cubin_resources_read(const unsigned char *data, size_t size, struct cubin_resources *out, char *err);
void cubin_resources_free(struct cubin_resources *r);

/* Largest threads per block the launch bounds allow: max_threads product, reqntid product,
 * or 0 when the kernel sets neither. */
unsigned cubin_kernel_bound(const struct cubin_kernel_res *k);

#endif
