/* The fleet: every node's facts, findings and measured numbers as read from its reports,
 * merged by node name. Reading is read.c, judging judge.c; nothing here touches a GPU. */
#ifndef CUDOCTOR_FLEET_H
#define CUDOCTOR_FLEET_H

#include <stdbool.h>
#include <stddef.h>

#include "report/report.h"
#include "util/strindex.h"

/* What may differ between nodes, in the order the fleet report lists it: each fact's enum, its
 * JSON key (nodes[].facts, and the Prometheus info label) and its text label, written once here
 * for every table of them (fleet_fact_table; the fleet's NODE.prom info metric). */
#define FLEET_FACTS(X)                                                                   \
	X(FF_DRIVER, "driver", "driver")                  /* "580.159.04" */                 \
	X(FF_CUDA, "driver_cuda", "CUDA (driver)")       /* the driver's CUDA, "13.0" */     \
	X(FF_GPUS, "gpus", "GPUs")                        /* "8x NVIDIA H100 80GB HBM3" */   \
	X(FF_TOOLKIT, "toolkit", "toolkit (nvcc)")        /* the nvcc a build uses */        \
	X(FF_RUNTIME, "cuda_runtime", "CUDA runtime")     /* the libcudart the loader picks */ \
	X(FF_TORCH, "pytorch", "PyTorch")                 /* and the CUDA it was built for */ \
	X(FF_NCCL, "nccl", "NCCL")                        /* the libnccl the loader picks */ \
	X(FF_MIG, "mig_mode", "MIG mode")                 /* per GPU, "off" or "on,off" */   \
	X(FF_PERSISTENCE, "persistence_mode", "persistence mode")                            \
	X(FF_ECC, "ecc_mode", "ECC mode")

#define FLEET_FACT_ENUM(k, key, label) k,
enum fleet_fact { FLEET_FACTS(FLEET_FACT_ENUM) FF_COUNT };
#undef FLEET_FACT_ENUM

/* struct fleet_node's facts[], one field each: their JSON keys and text labels */
extern const struct field_table fleet_fact_table;
const char *fleet_fact_label(enum fleet_fact f); /* text: "driver", "CUDA (driver)" */
const char *fleet_fact_key(enum fleet_fact f);   /* JSON: "driver", "driver_cuda" */

/* One finding of one node; a node holds each id once (its worst severity). */
struct fleet_finding {
	char *id;
	enum severity severity;
	char *title;
	char *fix;          /* the node's fix lines, '\n'-joined ("" when none) */
};

/* One measured number: a lab's measurement, or a check load result, on one GPU of the node. */
struct fleet_sample {
	char *metric;       /* "bandwidth: device-to-device copy"; check's: FLEET_CHECK_METRIC "..." */
	char *unit;         /* "GB/s" */
	int gpu;            /* CUDA ordinal, -1 when the report does not say */
	double value;
};

/* One GPU's health verdict from a check report (gpus[].healthy): the fleet's
 * cudoctor_gpu_healthy gauge. */
struct fleet_gpu_health {
	int gpu;            /* nvidia-smi's index, else the CUDA ordinal; -1 unknown */
	char *uuid, *bus;   /* "" when the report does not say */
	bool healthy;
};

/* check's GPU count (gpu_count): the PCI bus, NVML, CUDA, expected; -1 unknown */
enum { FLEET_COUNT_PCI, FLEET_COUNT_NVML, FLEET_COUNT_CUDA, FLEET_COUNT_EXPECTED, FLEET_COUNT_N };

/* The prefix of the samples read from check's load rows: rates, where lower is slower, so a
 * GPU far below the fleet's median is a slow GPU (fleet-check-slow) rather than an outlier. */
#define FLEET_CHECK_METRIC "check: "

/* The reports a node's view is made of: the newest of each command, kept apart so that an
 * older one never mixes into the view (docs/fleet.md "Several reports of one node"). */
enum fleet_part { FP_DOCTOR, FP_DEVICES, FP_LAB, FP_CHECK, FP_BUNDLE, FP_COUNT };

struct fleet_node {
	char *name;
	char *facts[FF_COUNT];        /* NULL: no report said */
	struct fleet_finding *findings;
	size_t n_findings, cap_findings;
	struct strindex finding_ix;   /* a finding's id -> its index in findings: a report of
				       * 100k findings is read in one pass, not n x n */
	struct fleet_sample *samples;
	size_t n_samples, cap_samples;
	char *failure;                /* the node could not collect its report: why */
	struct fleet_gpu_health *health;
	size_t n_health, cap_health;
	long long gpu_count[FLEET_COUNT_N]; /* check's gpu_count, -1 unknown (0 set: never read) */
	bool have_count;
	/* what the view above is rebuilt from: the newest report of each command, by its
	 * header's date (ISO 8601, UTC; "" when it has none) */
	struct fleet_node *part[FP_COUNT];
	char *part_date[FP_COUNT];
};

/* An input that was named and left out: a file or a rank's message. */
struct fleet_skip {
	char *source;
	char *reason;
};

struct fleet {
	struct fleet_node *nodes;
	size_t n_nodes, cap_nodes;
	size_t *index;                /* open-addressing table of node indices + 1, by name */
	size_t index_cap;
	struct fleet_skip *skipped;
	size_t n_skipped, cap_skipped;
	char **missing;               /* nodes expected (MPI) that sent nothing */
	size_t n_missing, cap_missing;
};

void fleet_init(struct fleet *f);
void fleet_free(struct fleet *f);

/* The node of that name, created when new; NULL on out of memory. */
struct fleet_node *fleet_node_get(struct fleet *f, const char *name);

/* Sets a fact unless a report already set it (the first report to say wins). */
int fleet_node_fact(struct fleet_node *n, enum fleet_fact fact, const char *value);
/* Adds a finding, or raises the severity of the node's finding with that id. */
int fleet_node_finding(struct fleet_node *n, const char *id, enum severity sev, const char *title,
		       const char *fix);
int fleet_node_sample(struct fleet_node *n, const char *metric, const char *unit, int gpu, double value);
int fleet_node_failed(struct fleet_node *n, const char *why);
/* A GPU's health verdict, as check wrote it. CD_OK or CD_ENOMEM. */
int fleet_node_health(struct fleet_node *n, int gpu, const char *uuid, const char *bus, bool healthy);

/* Moves every node of src, read from one report of command taken at date, into dst: per node
 * the newest report of each command is kept (a later one of the same date wins) and an older
 * one is named in dst's skipped list; the node's view is the kept reports merged newest first,
 * so a fact two of them state differently is the newer one's. src is left to fleet_free. */
int fleet_merge(struct fleet *dst, struct fleet *src, const char *command, const char *date);

int fleet_skip(struct fleet *f, const char *source, const char *reason);
int fleet_missing(struct fleet *f, const char *name);

/* A node's report is tens of KB; JSON costs ~20 times its size in memory once parsed, so a
 * larger one is refused before it is parsed (a 40 MB one took 860 MB). */
#define FLEET_REPORT_MAX ((size_t)8 << 20)

/* Reads one `cudoctor --json` report (doctor, devices, lab, or the fleet-node bundle a rank
 * sends) into f; one larger than FLEET_REPORT_MAX is CD_EFORMAT. The node is the report's own (top-level "node", or "header" → "node" /
 * "hostname"), else fallback_name. CD_OK; CD_EFORMAT (not JSON, truncated, not cudoctor's,
 * a malformed field) or CD_EUNSUPPORTED (a newer major version, a command the fleet does
 * not read), err naming what was wrong and where; CD_ENOMEM. */
int fleet_read_report(struct fleet *f, const unsigned char *data, size_t size, const char *fallback_name,
		      char *err);

/* The file name's stem: "/x/node03.json" → "node03" (into buf of n bytes). */
void fleet_name_from_path(const char *path, char *buf, size_t n);

#endif
