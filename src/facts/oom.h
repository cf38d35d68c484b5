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
	OOM_HAVE_LARGEST_FREE = 1 << 7,    /* the largest free block of the allocator's pool */
	OOM_HAVE_PROGRAM = 1 << 8,         /* what a compiled program's buffers need at once */
};

/* Whose numbers they are: the words of the evidence follow them. */
enum oom_form {
	OOM_FORM_TORCH,  /* PyTorch's message, or measured: total/free are the GPU's */
	OOM_FORM_BFC,    /* TensorFlow's/XLA's BFC allocator: total/free are its pool's (Limit, InUse) */
	OOM_FORM_XLA,    /* XLA's BufferAssignment: the request and the program's buffers */
	OOM_FORM_GGML,   /* llama.cpp's cudaMalloc: the request; the device's VRAM, what was free when
			  * the model loaded and the buffers it allocated since, where its log said */
};

/* Bytes. Fill what you know and set `have`; mem fills these from NVML and the driver. */
struct oom_numbers {
	unsigned have;
	enum oom_form form;
	double requested, total, free_bytes, allocated, reserved_unalloc, this_process, others;
	double largest_free, program;
};

#endif
