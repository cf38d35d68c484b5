/* The numbers of a CUDA out-of-memory, with which are known: read from PyTorch's message
 * (explain/oom_text.h) or measured (mem status, through NVML and the driver); rules/oom.h
 * classifies them. */
#ifndef CUDOCTOR_FACTS_OOM_H
#define CUDOCTOR_FACTS_OOM_H

/* Which fields of struct oom_numbers are known. */
enum {
	OOM_HAVE_REQUESTED = 1 << 0,
	OOM_HAVE_TOTAL = 1 << 1,
	OOM_HAVE_FREE = 1 << 2,
	OOM_HAVE_ALLOCATED = 1 << 3,       /* allocated by PyTorch (live tensors) */
	OOM_HAVE_RESERVED_UNALLOC = 1 << 4,/* reserved by PyTorch's cache but unallocated */
	OOM_HAVE_THIS_PROCESS = 1 << 5,    /* this process, including non-PyTorch memory */
	OOM_HAVE_OTHERS = 1 << 6,          /* other processes on the GPU */
};

/* Bytes. Fill what you know and set `have`; mem fills these from NVML and the driver. */
struct oom_numbers {
	unsigned have;
	double requested, total, free_bytes, allocated, reserved_unalloc, this_process, others;
};

#endif
