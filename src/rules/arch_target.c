/* What `arch` (and explain) judge against: --gpu SPEC and --driver VER as both commands
 * read them, and the rest from this machine through probe/gpu_caps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb/kb.h"
#include "rules/arch.h"
#include "util/err.h"
#include "util/version.h"

int arch_parse_gpu_spec(const char *spec, unsigned *cc, char *label, size_t label_cap, char *err)
{
	struct gpu_spec gs;
	int rc = kb_parse_gpu_spec(spec, &gs, err);
	if (rc)
		return rc;
	*cc = (unsigned)(gs.cc_major * 10 + gs.cc_minor);
	if (label)
		snprintf(label, label_cap, "%s", gs.gpu ? gs.label : spec);
	return CD_OK;
}

int arch_driver_from_text(const char *text, struct arch_driver *d, char *err)
{
	struct version v;
	size_t dots = 0;
	bool digits_only = text[0] != '\0';

	memset(d, 0, sizeof(*d));
	for (const char *p = text; *p; p++) {
		dots += *p == '.';
		digits_only &= (*p >= '0' && *p <= '9') || (*p == '.' && p[1] && p[1] != '.');
	}
	/* a driver has up to three parts (550.54.14), a CUDA version two (12.4) */
	if (!digits_only || dots > 2 || version_parse(text, &v) != CD_OK || v.major <= 0 ||
	    (v.major < 100 && !kb_toolkit_find(&v)))
		return cd_fail(err, CD_EUSAGE, "--driver '%s' is neither a driver version (550.54.14) nor a CUDA version "
			       "cudoctor knows (12.4)", text);
	d->known = true;
	snprintf(d->source, sizeof(d->source), "--driver");
	if (v.major >= 100) {
		snprintf(d->version, sizeof(d->version), "%s", text);
		arch_driver_complete(d);
		if (!d->cuda)
			return cd_fail(err, CD_EUSAGE, "driver %s is older than any CUDA release cudoctor knows", text);
	} else {
		d->cuda = version_to_cuda_int(&v);
		arch_driver_complete(d);
	}
	return CD_OK;
}

int arch_target_gpu_option(struct arch_target *t, const char *spec, char *err)
{
	char label[128];
	struct arch_gpu *g;
	int rc;

	if (t->n_gpus == ARCH_MAX_GPUS)
		return cd_fail(err, CD_EUSAGE, "at most %d --gpu options", ARCH_MAX_GPUS);
	g = &t->gpus[t->n_gpus];
	/* AMD's names (gfx1100, "RX 7900 XTX", 780M, MI300X) are none of NVIDIA's */
	rc = arch_amd_gpu_spec(spec, g, label, sizeof(label), err);
	if (rc == CD_ENOTFOUND) {
		memset(g, 0, sizeof(*g));
		rc = arch_parse_gpu_spec(spec, &g->cc, label, sizeof(label), err);
	}
	if (rc != CD_OK)
		return rc;
	g->ordinal = -1;
	snprintf(g->name, sizeof(g->name), "--gpu %s", label);
	t->n_gpus++;
	return CD_OK;
}

int arch_target_driver_option(struct arch_target *t, const char *text, char *err)
{
	return arch_driver_from_text(text, &t->driver, err);
}

void arch_target_none_why(const struct gpu_probe *p, char *why, size_t why_cap)
{
	if (!p->cuda_loaded && p->cuda_load_error[0])
		snprintf(why, why_cap, "no GPU to judge against: %s (name one with --gpu)", p->cuda_load_error);
	else if (driver_has(p, DF_CUDA_INIT) && p->cuda_init_result != CUDA_SUCCESS)
		snprintf(why, why_cap, "no GPU to judge against: cuInit failed (%s); name one with --gpu",
			 p->cuda_init_result_name);
	else
		snprintf(why, why_cap, "no GPU to judge against: no CUDA device visible (name one with --gpu)");
}
