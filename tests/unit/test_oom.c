/* OOM messages from public issues (PyTorch's, TensorFlow's/XLA's allocator, XLA's buffer
 * assignment): their numbers and their classification. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "explain/oom_text.h"
#include "rules/oom.h"
#include "util/err.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define MIB (1024.0 * 1024.0)

static void near(double got, double want)
{
	double d = got > want ? got - want : want - got;

	if (d > want * 1e-6 + 1)
		fail_msg("got %.0f, want %.0f", got, want);
}

struct oom_case {
	const char *source;
	const char *text;
	enum oom_class want;
	double requested, total, free_bytes; /* GiB; -1 = absent */
	bool legacy;
};

static const struct oom_case cases[] = {
	{ "https://github.com/kerrj/lerf/issues/73",
	  "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.00 GiB. GPU 0 has a "
	  "total capacty of 23.65 GiB of which 1.66 GiB is free. Including non-PyTorch memory, this "
	  "process has 20.81 GiB memory in use. Of the allocated memory 12.09 GiB is allocated by "
	  "PyTorch, and 4.84 GiB is reserved by PyTorch but unallocated. If reserved but unallocated "
	  "memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation "
	  "for Memory Management and PYTORCH_CUDA_ALLOC_CONF",
	  OOM_CLASS_FRAGMENTATION, 3.0, 23.65, 1.66, false },
	{ "https://github.com/Synthintel0/MyGirlGPT/issues/11",
	  "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 32.00 MiB. GPU 0 has a "
	  "total capacty of 4.00 GiB of which 41.56 MiB is free. Including non-PyTorch memory, this "
	  "process has 3.44 GiB memory in use. Of the allocated memory 2.58 GiB is allocated by "
	  "PyTorch, and 1.90 MiB is reserved by PyTorch but unallocated.",
	  OOM_CLASS_CAPACITY, 32.0 / 1024, 4.0, 41.56 / 1024, false },
	{ "https://github.com/wxian3/NeuroLens/issues/2",
	  "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 55.57 GiB. GPU 0 has a "
	  "total capacty of 12.00 GiB of which 9.02 GiB is free. Of the allocated memory 984.52 MiB "
	  "is allocated by PyTorch, and 463.48 MiB is reserved by PyTorch but unallocated.",
	  OOM_CLASS_CAPACITY, 55.57, 12.0, 9.02, false },
	{ "https://github.com/carolchenyx/MGFN./issues/35",
	  "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.70 GiB. GPU 0 has a "
	  "total capacty of 6.00 GiB of which 0 bytes is free. Of the allocated memory 2.93 GiB is "
	  "allocated by PyTorch, and 2.30 GiB is reserved by PyTorch but unallocated.",
	  OOM_CLASS_FRAGMENTATION, 1.70, 6.0, 0, false },
	{ "https://github.com/pytorch/pytorch/issues/16417",
	  "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 22.00 MiB. GPU 0 has a "
	  "total capacity of 23.65 GiB of which 11.06 MiB is free. Including non-PyTorch memory, this "
	  "process has 23.60 GiB memory in use. Of the allocated memory 22.90 GiB is allocated by "
	  "PyTorch, and 194.87 MiB is reserved by PyTorch but unallocated. If reserved but "
	  "unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
	  "to avoid fragmentation.",
	  /* 194.87 MiB cached but unallocated covers the 22 MiB: not one block of it is free */
	  OOM_CLASS_FRAGMENTATION, 22.0 / 1024, 23.65, 11.06 / 1024, false },
	{ "https://github.com/pytorch/pytorch/issues/59778",
	  "CUDA out of memory. Tried to allocate 2.26 GiB (GPU 0; 6.00 GiB total capacity; 781.59 MiB "
	  "already allocated; 3.03 GiB free; 1.24 GiB reserved in total by PyTorch)",
	  OOM_CLASS_FRAGMENTATION, 2.26, 6.0, 3.03, true },
	{ "https://github.com/Li-Chongyi/Zero-DCE/issues/52",
	  "OutOfMemoryError: CUDA out of memory. Tried to allocate 1.71 GiB (GPU 0; 6.00 GiB total "
	  "capacity; 3.49 GiB already allocated; 1.04 GiB free; 3.50 GiB reserved in total by "
	  "PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid "
	  "fragmentation.",
	  OOM_CLASS_CAPACITY, 1.71, 6.0, 1.04, true },
	{ "https://github.com/shllln/GenerativeGraph/issues/5",
	  "RuntimeError: CUDA out of memory. Tried to allocate 1024.00 KiB (GPU 0; 11.17 GiB total "
	  "capacity; 10.90 GiB already allocated; 576.00 KiB free; 30.96 MiB cached)",
	  OOM_CLASS_CAPACITY, 1.0 / 1024, 11.17, 576.0 / 1024 / 1024, true },
	{ "https://github.com/pytorch/pytorch/issues/16417",
	  "RuntimeError: CUDA out of memory. Tried to allocate 12.50 MiB (GPU 0; 10.92 GiB total "
	  "capacity; 8.57 MiB already allocated; 9.28 GiB free; 4.68 MiB cached)",
	  OOM_CLASS_UNKNOWN, 12.5 / 1024, 10.92, 9.28, true },
	{ "https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/962",
	  "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 10.76 GiB total "
	  "capacity; 2.42 GiB already allocated; 26.12 MiB free; 2.75 GiB reserved in total by "
	  "PyTorch).",
	  OOM_CLASS_OTHER_PROCESS, 20.0 / 1024, 10.76, 26.12 / 1024, true },
	{ "https://github.com/vllm-project/vllm/issues/783",
	  "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.63 GiB (GPU 0; 44.56 "
	  "GiB total capacity; 27.91 GiB already allocated; 565.31 MiB free; 27.93 GiB reserved in "
	  "total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb "
	  "to avoid fragmentation.",
	  OOM_CLASS_OTHER_PROCESS, 1.63, 44.56, 565.31 / 1024, true },
	{ "https://github.com/DINGYANB/MTVCrafter/issues/21",
	  "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 26.00 MiB. GPU 0 has a total "
	  "capacity of 44.43 GiB of which 19.00 MiB is free. Including non-PyTorch memory, this process "
	  "has 44.40 GiB memory in use. Of the allocated memory 43.94 GiB is allocated by PyTorch, and "
	  "41.95 MiB is reserved by PyTorch but unallocated.",
	  /* 61 MiB free or cached covers the 26 MiB, but the live tensors and the request leave
	   * 0.46 GiB of 44.43: its own data fills the GPU, defragmenting would not */
	  OOM_CLASS_CAPACITY, 26.0 / 1024, 44.43, 19.0 / 1024, false },
	{ "https://github.com/studio-dots-ai/dots.ocr/issues/196",
	  "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 74.16 GiB. GPU 0 has a total "
	  "capacity of 44.40 GiB of which 29.89 GiB is free. Process 2684311 has 14.51 GiB memory in "
	  "use. Of the allocated memory 13.44 GiB is allocated by PyTorch, and 738.96 MiB is reserved "
	  "by PyTorch but unallocated.",
	  OOM_CLASS_CAPACITY, 74.16, 44.40, 29.89, false },
};

static void real_messages(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct oom_case *c = &cases[i];
		struct oom_message m;

		assert_int_equal(oom_parse(c->text, strlen(c->text), &m), CD_OK);
		near(m.n.requested, c->requested * GIB);
		near(m.n.total, c->total * GIB);
		near(m.n.free_bytes, c->free_bytes * GIB);
		assert_int_equal(m.gpu, 0);
		assert_int_equal(m.legacy, c->legacy);
		if (oom_classify(&m.n) != c->want)
			fail_msg("%s: classified %s, want %s", c->source,
				 oom_class_finding(oom_classify(&m.n)), oom_class_finding(c->want));
	}
}

/* TensorFlow's BFC allocator: its failure line and, after the chunk dump, its summary. A real
 * one (tensorflow/tensorflow#11915: the pinned-host pool, whose Stats print as a GPU pool's do):
 * the pool is full, the request cannot fit. */
static void bfc_allocator_summary(void **state)
{
	static const char full[] =
		"2017-07-31 11:36:02.748450: I tensorflow/core/common_runtime/bfc_allocator.cc:700] Sum Total of "
		"in-use chunks: 64.00GiB\n"
		"2017-07-31 11:36:02.748462: I tensorflow/core/common_runtime/bfc_allocator.cc:702] Stats: \n"
		"Limit:                 68719476736\n"
		"InUse:                 68719476736\n"
		"MaxInUse:              68719476736\n"
		"NumAllocs:                      32\n"
		"MaxAllocSize:           6359738368\n"
		"\n"
		"2017-07-31 11:36:02.748547: W tensorflow/core/common_runtime/bfc_allocator.cc:273] Allocator "
		"(cuda_host_bfc) ran out of memory trying to allocate 3.72GiB.  Current allocation summary follows.\n";
	/* TF 2.x's Stats (tensorflow/core/framework/allocator.cc, AllocatorStats::DebugString) with a
	 * free share larger than the request but no block that large */
	static const char split[] =
		"W tensorflow/core/common_runtime/bfc_allocator.cc:457] Allocator (GPU_0_bfc) ran out of memory "
		"trying to allocate 1.00GiB (rounded to 1073741824)requested by op Conv2D\n"
		"I tensorflow/core/common_runtime/bfc_allocator.cc:1100] Sum Total of in-use chunks: 5.50GiB\n"
		"I tensorflow/core/common_runtime/bfc_allocator.cc:1102] total_region_allocated_bytes_: 7900495872 "
		"memory_limit_: 7900495872 available bytes: 0 curr_region_allocation_bytes_: 15800991744\n"
		"I tensorflow/core/common_runtime/bfc_allocator.cc:1108] Stats: \n"
		"Limit:                      7900495872\n"
		"InUse:                      5905580032\n"
		"MaxInUse:                   6442450944\n"
		"NumAllocs:                        4211\n"
		"MaxAllocSize:               1073741824\n"
		"Reserved:                            0\n"
		"PeakReserved:                        0\n"
		"LargestFreeBlock:            536870912\n";
	struct oom_message m;
	char ev[4][OOM_EVIDENCE_LINE];

	(void)state;
	assert_int_equal(oom_parse(full, sizeof(full) - 1, &m), CD_OK);
	assert_int_equal(m.n.form, OOM_FORM_BFC);
	near(m.n.total, 68719476736.0);
	near(m.n.allocated, 68719476736.0);
	near(m.n.free_bytes, 0);
	near(m.n.requested, 3.72 * GIB);
	assert_int_equal(oom_classify(&m.n), OOM_CLASS_CAPACITY);
	assert_string_equal(oom_finding_of(&m.n), "oom-capacity");

	assert_int_equal(oom_parse(split, sizeof(split) - 1, &m), CD_OK);
	near(m.n.requested, GIB);
	near(m.n.total, 7900495872.0);
	near(m.n.free_bytes, 7900495872.0 - 5905580032.0);
	near(m.n.largest_free, 536870912.0);
	assert_int_equal(oom_classify(&m.n), OOM_CLASS_FRAGMENTATION);
	assert_true(oom_evidence(&m.n, 0, false, ev, 4) >= 2);
	assert_non_null(strstr(ev[0], "largest free block 512 MiB"));
	assert_non_null(strstr(ev[1], "no free block that large"));
	/* the same pool with a block that holds the request never failed for want of memory;
	 * without free space it is full */
	m.n.largest_free = 2 * GIB;
	assert_int_equal(oom_classify(&m.n), OOM_CLASS_UNKNOWN);
	m.n.free_bytes = 0.5 * GIB;
	m.n.largest_free = 0.5 * GIB;
	assert_int_equal(oom_classify(&m.n), OOM_CLASS_CAPACITY);

	/* the failure line and the summary, read apart, add up */
	{
		struct oom_message a, b;
		const char *sum = strstr(split, "I tensorflow/core/common_runtime/bfc_allocator.cc:1100]");

		assert_int_equal(oom_parse(split, (size_t)(sum - split), &a), CD_OK);
		assert_int_equal(a.n.have, OOM_HAVE_REQUESTED);
		assert_int_equal(oom_parse(sum, strlen(sum), &b), CD_OK);
		assert_false(b.n.have & OOM_HAVE_REQUESTED);
		oom_merge(&a, &b);
		assert_int_equal(oom_classify(&a.n), OOM_CLASS_FRAGMENTATION);
	}
}

/* XLA's BufferAssignment: the request and what the compiled program needs in all. */
static void xla_buffer_assignment(void **state)
{
	/* https://github.com/jax-ml/jax/issues/13428: 12 MiB in all cannot fill any GPU */
	static const char small[] =
		"jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate "
		"6291456 bytes.\nBufferAssignment OOM Debugging.\nBufferAssignment stats:\n"
		"             parameter allocation:    6.00MiB\n              constant allocation:         0B\n"
		"        maybe_live_out allocation:    6.00MiB\n     preallocated temp allocation:         0B\n"
		"                 total allocation:   12.00MiB\n              total fragmentation:         0B (0.00%)\n";
	/* https://github.com/patrickbryant1/AFProfile/issues/8: 14.44 GiB on a 12 GiB GPU */
	static const char big[] =
		"jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate "
		"4770354232 bytes.\nBufferAssignment OOM Debugging.\nBufferAssignment stats:\n"
		"             parameter allocation:  372.76MiB\n              constant allocation:    48.5KiB\n"
		"        maybe_live_out allocation:    9.64GiB\n     preallocated temp allocation:    4.44GiB\n"
		"                 total allocation:   14.44GiB\n              total fragmentation:  680.30MiB (4.60%)\n";
	struct oom_message m;
	char ev[4][OOM_EVIDENCE_LINE];

	(void)state;
	assert_int_equal(oom_parse(small, sizeof(small) - 1, &m), CD_OK);
	assert_int_equal(m.n.form, OOM_FORM_XLA);
	near(m.n.requested, 6291456.0);
	near(m.n.program, 12 * MIB);
	assert_int_equal(oom_classify(&m.n), OOM_CLASS_HELD_ELSEWHERE);
	assert_string_equal(oom_finding_of(&m.n), "out-of-memory");
	assert_int_equal(oom_evidence(&m.n, -1, false, ev, 4), 2);
	assert_non_null(strstr(ev[0], "the compiled program's buffers: 12 MiB in all"));
	assert_non_null(strstr(ev[1], "held elsewhere"));

	/* a program of GiBs: the text does not say how large the GPU is, so its class stays XLA's */
	assert_int_equal(oom_parse(big, sizeof(big) - 1, &m), CD_OK);
	near(m.n.program, 14.44 * GIB);
	assert_int_equal(oom_classify(&m.n), OOM_CLASS_UNKNOWN);
	assert_null(oom_finding_of(&m.n));
}

/* XLA's cuMemAllocAsync allocator: the request and the GPU's own free and total. */
static void xla_cumemallocasync(void **state)
{
	/* https://github.com/NovaSky-AI/SkyRL/issues/624: 1.1 TiB asked of an 80 GB GPU */
	static const char huge[] =
		"E1103 18:23:55.103160 3413767 gpu_cudamallocasync_allocator.cc:361] gpu_async_1 cuMemAllocAsync failed "
		"to allocate 1225195446464 bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory\n"
		" Reported by CUDA: Free memory/Total memory: 22635544576/85095874560\n";
	/* the same line with a request that free memory covers: the numbers cannot say */
	static const char fits[] = "cuMemAllocAsync failed to allocate 1048576 bytes: RESOURCE_EXHAUSTED\n"
				   " Reported by CUDA: Free memory/Total memory: 22635544576/85095874560\n";
	static const char garbled[] = "cuMemAllocAsync failed to allocate 1048576 bytes\n"
				      " Reported by CUDA: Free memory/Total memory: 9/8\n";
	struct oom_message m;
	char ev[4][OOM_EVIDENCE_LINE];

	(void)state;
	assert_int_equal(oom_parse(huge, sizeof(huge) - 1, &m), CD_OK);
	assert_int_equal(m.n.form, OOM_FORM_TORCH);
	near(m.n.requested, 1225195446464.0);
	near(m.n.free_bytes, 22635544576.0);
	near(m.n.total, 85095874560.0);
	assert_string_equal(oom_finding_of(&m.n), "oom-capacity");
	assert_int_equal(oom_evidence(&m.n, m.gpu, false, ev, 4), 2);
	assert_non_null(strstr(ev[0], "the GPU total 79.3 GiB, free 21.1 GiB"));
	assert_non_null(strstr(ev[1], "the request alone is larger than the GPU"));
	assert_int_equal(oom_parse(fits, sizeof(fits) - 1, &m), CD_OK);
	assert_null(oom_finding_of(&m.n));
	/* free above total is no GPU's: the pair is not taken */
	assert_int_equal(oom_parse(garbled, sizeof(garbled) - 1, &m), CD_OK);
	assert_false(m.n.have & OOM_HAVE_TOTAL);
}

static void numbers_of_one_message(void **state)
{
	struct oom_message m;
	const char *t = cases[0].text;

	(void)state;
	assert_int_equal(oom_parse(t, strlen(t), &m), CD_OK);
	near(m.n.this_process, 20.81 * GIB);
	near(m.n.allocated, 12.09 * GIB);
	near(m.n.reserved_unalloc, 4.84 * GIB);
	assert_true(m.n.have & OOM_HAVE_THIS_PROCESS);
	assert_false(m.suggests_expandable);
	assert_true(oom_expandable_helps(&m.n));
	t = cases[4].text;
	assert_int_equal(oom_parse(t, strlen(t), &m), CD_OK);
	assert_true(m.suggests_expandable);
	assert_false(oom_expandable_helps(&m.n)); /* 195 MiB cached of 23.65 GiB: not the cause */
	/* legacy: reserved-but-unallocated = reserved - allocated */
	t = cases[5].text;
	assert_int_equal(oom_parse(t, strlen(t), &m), CD_OK);
	near(m.n.reserved_unalloc, 1.24 * GIB - 781.59 * MIB);
}

/* The process-list form: the one listed process is this one, so nobody else holds memory. */
static void process_list_form(void **state)
{
	/* https://github.com/vllm-project/vllm/issues/7721 */
	static const char t[] =
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 16.00 GiB. GPU 0 has a "
		"total capacity of 44.53 GiB of which 187.94 MiB is free. Process 3909982 has 44.34 GiB "
		"memory in use. Of the allocated memory 43.67 GiB is allocated by PyTorch, and 335.07 MiB "
		"is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try "
		"setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.";
	struct oom_message m;

	(void)state;
	assert_int_equal(oom_parse(t, sizeof(t) - 1, &m), CD_OK);
	assert_int_equal(m.n_processes, 1);
	assert_true(m.n.have & OOM_HAVE_OTHERS);
	near(m.n.others, 0);
	assert_int_equal(oom_classify(&m.n), OOM_CLASS_CAPACITY);
	assert_false(oom_expandable_helps(&m.n));
}

/* llama.cpp's cudaMalloc (OOM_FORM_GGML): the buffers it put on the device, the request and the
 * device's VRAM; or what was free when the model loaded. Numbers in MiB as its log prints them:
 * a 6141 MiB GPU holding a 4168.09 MiB model buffer
 * (https://github.com/canonical/inference-snaps/issues/107), an 11172 MiB GPU
 * (https://github.com/canonical/inference-snaps/issues/255). */
static void ggml_numbers(void **state)
{
	const double mib = 1024.0 * 1024.0;
	struct oom_numbers n = { 0 };
	char ev[8][OOM_EVIDENCE_LINE];
	size_t k;

	(void)state;
	n.form = OOM_FORM_GGML;
	n.have = OOM_HAVE_REQUESTED | OOM_HAVE_THIS_PROCESS;
	n.requested = 2200 * mib;
	n.this_process = 4168.09 * mib;
	/* without the device's VRAM the numbers cannot say */
	assert_int_equal(oom_classify(&n), OOM_CLASS_UNKNOWN);
	n.have |= OOM_HAVE_TOTAL;
	n.total = 6141 * mib;
	/* 4168.09 + 2200 = 6368.09 MiB > 6141 MiB */
	assert_int_equal(oom_classify(&n), OOM_CLASS_CAPACITY);
	k = oom_evidence(&n, 0, false, ev, 8);
	assert_int_equal(k, 2);
	assert_non_null(strstr(ev[0], "llama.cpp asked for 2.1 GiB on CUDA0; its buffers there before it"));
	assert_non_null(strstr(ev[0], "4.1 GiB, 6.2 GiB with this one; the GPU has 6 GiB"));
	assert_non_null(strstr(ev[1], "need more than the GPU has"));
	/* 11172 MiB, 3000 MiB of it free when the model loaded: 8172 MiB was held elsewhere */
	n.total = 11172 * mib;
	n.this_process = 1000 * mib;
	n.free_bytes = 2000 * mib; /* 3000 free at load less the 1000 MiB of its own buffers */
	n.have |= OOM_HAVE_FREE;
	n.requested = 2500 * mib;
	assert_int_equal(oom_classify(&n), OOM_CLASS_OTHER_PROCESS);
	near(oom_others(&n), 8172 * mib);
	k = oom_evidence(&n, 0, false, ev, 8);
	assert_non_null(strstr(ev[0], "2.9 GiB of it free when the model was loaded"));
	assert_non_null(strstr(ev[1], "8 GiB of it was in use before the model loaded"));
	/* little held elsewhere: its own buffers fill it; never fragmentation (the free number is
	 * derived from the log, not the driver's) */
	n.free_bytes = 500 * mib;
	n.this_process = 10172 * mib - 500 * mib;
	n.requested = 600 * mib;
	assert_int_equal(oom_classify(&n), OOM_CLASS_CAPACITY);
	n.requested = 400 * mib;
	assert_int_not_equal(oom_classify(&n), OOM_CLASS_FRAGMENTATION);
}

/* mem classifies from NVML numbers with the same rules. */
static void numbers_without_a_message(void **state)
{
	struct oom_numbers n = { 0 };

	(void)state;
	assert_int_equal(oom_classify(&n), OOM_CLASS_UNKNOWN);
	n.have = OOM_HAVE_REQUESTED | OOM_HAVE_TOTAL | OOM_HAVE_FREE | OOM_HAVE_OTHERS;
	n.total = 80 * GIB;
	n.free_bytes = 2 * GIB;
	n.requested = 10 * GIB;
	n.others = 40 * GIB;
	assert_int_equal(oom_classify(&n), OOM_CLASS_OTHER_PROCESS);
	n.others = 0;
	assert_int_equal(oom_classify(&n), OOM_CLASS_CAPACITY);
	n.requested = 100 * GIB;
	assert_int_equal(oom_classify(&n), OOM_CLASS_CAPACITY);
	assert_string_equal(oom_class_finding(OOM_CLASS_FRAGMENTATION), "oom-fragmentation");
}

static void buried_in_a_log_and_bounded(void **state)
{
	char log[8192];
	struct oom_message m;
	const char *t = cases[3].text;
	size_t n;

	(void)state;
	memset(log, 'x', sizeof(log));
	memcpy(log + 100, "\n", 1);
	n = strlen(t);
	memcpy(log + 200, t, n);
	log[200 + n] = '\n';
	assert_int_equal(oom_parse(log, sizeof(log), &m), CD_OK); /* not NUL-terminated */
	assert_int_equal(m.offset, 200 + strlen("torch.cuda.OutOfMemoryError: "));
	assert_int_equal(oom_classify(&m.n), OOM_CLASS_FRAGMENTATION);
	/* truncated mid-number: no crash, fewer numbers */
	assert_int_equal(oom_parse(t, 70, &m), CD_OK);
	assert_false(m.n.have & OOM_HAVE_TOTAL);
	assert_int_equal(oom_parse("no memory trouble here", 22, &m), CD_ENOTFOUND);
	assert_int_equal(oom_parse(NULL, 0, &m), CD_ENOTFOUND);
}

static void sizes(void **state)
{
	double b;
	size_t used;

	(void)state;
	assert_int_equal(oom_parse_size("0 bytes is free", 15, &b, &used), CD_OK);
	assert_true(b == 0);
	assert_int_equal(used, 7);
	assert_int_equal(oom_parse_size("1.5 GiB", 7, &b, &used), CD_OK);
	near(b, 1.5 * GIB);
	assert_int_equal(oom_parse_size("1.5 G", 5, &b, &used), CD_EFORMAT);
	assert_int_equal(oom_parse_size("GiB", 3, &b, &used), CD_EFORMAT);
	/* a garbled number (the fuzzer's 17179869184.00 GiB) is not a size: it would overflow the byte count */
	assert_int_equal(oom_parse_size("17179869184.00 GiB", 18, &b, &used), CD_EFORMAT);
	assert_int_equal(oom_parse_size("1023.00 TiB", 11, &b, &used), CD_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(real_messages),
		cmocka_unit_test(numbers_of_one_message),
		cmocka_unit_test(process_list_form),
		cmocka_unit_test(numbers_without_a_message),
		cmocka_unit_test(ggml_numbers),
		cmocka_unit_test(buried_in_a_log_and_bounded),
		cmocka_unit_test(sizes),
		cmocka_unit_test(bfc_allocator_summary),
		cmocka_unit_test(xla_buffer_assignment),
		cmocka_unit_test(xla_cumemallocasync),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
