/* Two cudoctor --json reports of one command compared: what changed in the machine, the
 * driver, the GPUs, the toolkits, the runtimes, the frameworks and the findings. Pure: JSON
 * in, changes out. */
#ifndef CUDOCTOR_REPORT_DIFF_H
#define CUDOCTOR_REPORT_DIFF_H

#include <jansson.h>
#include <stddef.h>

/* Parses one report (name: what to call it in err): one JSON object whose "tool" is
 * "cudoctor" and whose "command" is a string. CD_OK (*out owned by the caller), or
 * CD_EFORMAT naming the input and what is wrong with it. */
int report_diff_load(const char *name, const unsigned char *data, size_t size, json_t **out, char *err);

enum diff_change { DIFF_ADDED, DIFF_REMOVED, DIFF_CHANGED };

struct diff_entry {
	const char *area;       /* "machine", "driver", "gpus", "toolkits", "runtimes", "frameworks", "findings" */
	enum diff_change change;
	char *item;             /* what changed: "GPU 0 (NVIDIA H200)", "/usr/local/cuda", "no-driver [GPU 0]" */
	const char *field;      /* for DIFF_CHANGED: the key that differs ("version"); NULL otherwise */
	json_t *before, *after; /* DIFF_CHANGED: the two values (owned) */
};

struct diff_result {
	struct diff_entry *e;
	size_t n, cap;
};

/* Everything that differs between a and b, area by area in the order above. CD_OK or CD_ENOMEM. */
int report_diff(const json_t *a, const json_t *b, struct diff_result *out);
void report_diff_free(struct diff_result *d);
const char *diff_change_name(enum diff_change c); /* "added" "removed" "changed" */

#endif
