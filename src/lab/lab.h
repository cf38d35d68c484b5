/* The lab: one experiment per claim of the CUDA programming model, each with a
 * measurement, a verdict and a lesson. Types shared by the labs, the registry and cmd/lab.c. */
#ifndef CUDOCTOR_LAB_H
#define CUDOCTOR_LAB_H

#include <stdbool.h>
#include <stddef.h>

#include "driver/cudrv.h"
#include "driver/nvml.h"
#include "facts/driver.h"

/* The device facts every lab sizes itself from: a view of the run's gpu_info of the device
 * (lab_dev_of, in the int sizes the labs compute with), and its free memory once the labs'
 * context exists. */
struct lab_dev {
	char name[256];
	int cc_major, cc_minor;
	int sm_count;
	int warp_size;
	int max_threads_per_block;
	int max_threads_per_sm;
	int max_blocks_per_sm;
	int smem_per_block;        /* default static limit (48 KB) */
	int smem_per_block_optin;
	int smem_per_sm;
	int regs_per_sm;
	int l2_bytes;
	int clock_khz;             /* peak SM clock the driver reports */
	int mem_clock_khz;         /* peak memory clock */
	int bus_width_bits;
	int async_engines;
	int const_bytes;
	size_t total_mem, free_mem;
};

enum lab_verdict { LAB_CONFIRMED = 0, LAB_REFUTED, LAB_INCONCLUSIVE, LAB_FAILED };
const char *lab_verdict_name(enum lab_verdict v);

struct lab_meas {
	char label[64];
	double value;
	char unit[16];
};

/* Chart data for --plot: one or more series of (x, y), or labelled bars. */
#define LAB_MAX_SERIES 6
#define LAB_MAX_POINTS 80
struct lab_series {
	char name[48];
	size_t n;
	double x[LAB_MAX_POINTS], y[LAB_MAX_POINTS];
};
struct lab_plot {
	bool used;
	bool bars;                 /* bars: series[0].y with labels[] on the x axis */
	bool heatmap;              /* series[0].y: an n x n matrix row by row, labels[] name rows and columns */
	bool logx, logy;
	char title[96], xlabel[64], ylabel[64];
	size_t n_series;
	struct lab_series series[LAB_MAX_SERIES];
	char labels[LAB_MAX_POINTS][16];
};

#define LAB_MAX_MEAS 1024        /* lab p2p: 14 rows per ordered pair, 56 pairs on 8 GPUs */
struct lab_result {
	const char *name;
	char setup[512];
	struct lab_meas meas[LAB_MAX_MEAS];
	size_t n_meas;
	enum lab_verdict verdict;
	char decided[512];         /* the numbers that decided the verdict */
	char note[512];            /* extra output: arrival order, TLB remark, peer hints */
	bool wrong_result;         /* the GPU produced wrong data: a bug, not a verdict */
	struct lab_plot plot;
};

struct lab_ctx;
struct p2p_links;
struct nccl;
struct cublas;
typedef void (*lab_progress_fn)(void *user, const char *lab, double fraction, const char *what);

struct lab_ctx {
	struct cudrv *d;
	const struct nvml *nv;     /* the run's NVML, initialised; NULL without one */
	const struct gpu_probe *probe; /* the run's driver and GPU facts (info is a view of them) */
	CUdevice dev;
	int ordinal;               /* dev's CUDA ordinal, as lab_open was given it */
	CUcontext ctx;
	CUmodule mod;
	CUstream s;                /* the stream every lab times on (ordered with the legacy stream) */
	struct lab_dev info;
	bool quick;
	bool tiny;                 /* CUDOCTOR_LAB_TINY: smallest shapes, for compute-sanitizer */
	unsigned long long seed;
	/* a kernel outlived its time limit and may still run: nothing more may be queued or
	 * waited for; the process's exit tears the context down */
	bool hung;
	lab_progress_fn progress;
	void *progress_user;
	const char *current;       /* lab running now, for progress */
	/* NVML readings during the run, through clock_user; NULL or 0 when unknown */
	int (*sm_clock_mhz)(void *user);                  /* current SM clock, MHz */
	int (*pcie_link)(void *user, int *gen, int *width); /* current link; 0 on success */
	void *clock_user;
	/* What a lab learns or loads from this machine beyond its GPU, through the command's
	 * run context (machine; cmd/lab/machine.h): the parts and rules the lab room does not
	 * reach. Each may be NULL: the lab says it cannot know. */
	void *machine;
	int (*p2p_links)(const struct lab_ctx *c, struct p2p_links *o, char *err); /* lab p2p: each pair's link theory */
	/* lab nccl: libnccl, the newest copy found; note names every copy. CD_ENOTFOUND when
	 * none loads (err says why) */
	int (*open_nccl)(const struct lab_ctx *c, struct nccl *nc, char *note, size_t note_cap, char *err);
	int (*open_cublas)(const struct lab_ctx *c, struct cublas *b, char *err); /* lab libraries: libcublas, newest first */
	/* the GPU's PCIe link as the topology read it from sysfs, for when pcie_link (NVML)
	 * cannot say; 0 on success */
	int (*sysfs_link)(const struct lab_ctx *c, int *gen, int *width);
};

struct lab {
	const char *name;
	const char *concept;       /* one line: the part of the model it shows */
	const char *measures;      /* one line: what it measures */
	const char *claim;
	const char *lesson;
	int (*run)(struct lab_ctx *c, struct lab_result *r, char *err);
};

/* registry.c */
size_t lab_count(void);
const struct lab *lab_at(size_t i);
const struct lab *lab_find(const char *name);

/* Adds one measurement; ignored (and returns false) once the table is full. */
bool lab_add(struct lab_result *r, const char *unit, double value, const char *label_fmt, ...)
	__attribute__((format(printf, 4, 5)));
void lab_progress(struct lab_ctx *c, double fraction, const char *what_fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool lab_plot_point(struct lab_plot *p, size_t series, const char *name, double x, double y);
bool lab_plot_bar(struct lab_plot *p, const char *label, double y);

#endif
