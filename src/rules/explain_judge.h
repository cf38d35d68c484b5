/* explain's judgement of a recognised error, in one place: whether the text is from this
 * machine, which source decides each fact the verdict reads (the text's, this machine's, the
 * user's options), and the finding's row and values. Pure: the command hands in what it read. */
#ifndef CUDOCTOR_RULES_EXPLAIN_JUDGE_H
#define CUDOCTOR_RULES_EXPLAIN_JUDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/facts.h"
#include "facts/text_platform.h"
#include "facts/textfacts.h"
#include "rules/arch.h"
#include "rules/catalogue.h"
#include "rules/checks.h"

/* Whether the text is from this machine. */
struct text_origin {
	bool here;      /* nothing in the text contradicts this machine: its verdicts may decide */
	char why[240];  /* one sentence */
};

/* Whether error id is one a machine without a working NVIDIA driver prints (the driver's
 * library or NVML missing, a CPU-only framework): such a text does not contradict a machine
 * without a driver. */
bool rules_error_without_driver(const char *id);

/* here: this machine's driver part, NULL when it was not looked at (--offline). host_windows:
 * cudoctor runs on Windows. driverless: every error the text shows is one of
 * rules_error_without_driver's. The text is another machine's when its driver, driver CUDA,
 * GPUs or platform contradict this machine's, or this machine has no driver and the text shows
 * one at work (a driver fact, or an error only a loaded driver gives). */
void rules_text_origin(const struct text_facts *t, const struct gpu_probe *here, bool host_windows, bool driverless,
		       struct text_origin *o);

/* A fact a verdict read, with where it came from. */
struct judged_fact {
	const char *name;    /* "driver", "driver_cuda", "gpus", "torch", "torch_cuda", "platform" */
	char value[96];
	enum fact_source source;
};
#define EXPLAIN_MAX_JUDGED 8

/* What the verdict on one recognised error reads. */
struct explain_judge {
	const struct text_error *e;
	const struct text_facts *text;
	const struct text_origin *origin;
	const struct arch_target *target; /* the GPUs and driver binaries were judged against: the
					   * first n_given_gpus from --gpu, the driver from --driver
					   * when driver_given, the rest this machine's */
	size_t n_given_gpus;
	bool driver_given;
	const char *binary;               /* --binary, else a path the text names; NULL none */
	const struct arch_file *binary_file; /* it, mapped; NULL when not */
	bool torch;                       /* the text (or the binary) is PyTorch's */
	const struct explain_checks *checks; /* the checks that ran, NULL none */
	const struct facts *here;         /* this machine's driver view, NULL when not looked at */
	const struct text_platform *platform; /* the platform the text shows (facts/text_platform.h) */
};

struct explain_verdict {
	const char *row;          /* the catalogue row: the id, or its case this machine shows */
	struct finding_vars vars; /* the row's values */
	struct judged_fact facts[EXPLAIN_MAX_JUDGED];
	size_t n_facts;
	bool machine;             /* this machine's own verdict chose the row (doctor's reading) */
};

/* The row and values of j's error: the text's facts, the options and, only when the text is
 * from this machine, this machine's facts and verdicts; the lines that name a build, a driver or
 * a wheel from the fix engine (rules/fix.h) fed the same facts with their sources. CD_OK,
 * CD_ENOMEM, or the kb's load error (err says why). */
int rules_explain_verdict(const struct explain_judge *j, struct explain_verdict *out, char *err);

#endif
