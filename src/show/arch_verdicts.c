/* `arch` verdicts written once: one line per GPU and its object (arch and explain both print
 * it), the findings rules/arch calls for, and the driver judged against. */
#include <stdio.h>
#include <stdlib.h>

#include "rules/driver_need.h"
#include "show/arch_verdicts.h"
#include "util/err.h"

void arch_verdict_fields(struct report_rec *w, const struct arch_gpu *g, const struct arch_verdict *v)
{
	const char *result = compat_verdict_name(v->verdict);
	char cc[16];

	snprintf(cc, sizeof(cc), "%u.%u", g->cc / 10, g->cc % 10);
	report_field(w, NULL, "gpu", rv_str(g->name));
	report_field(w, NULL, "compute_capability", g->amd ? rv_null() : rv_str(cc));
	if (g->amd)
		report_field(w, NULL, "gfx", rv_str(g->gfx));
	report_fieldf(w, g->name, "result", rv_str(result), "%s: %s", result, v->reason);
	if (v->image[0])
		report_field(w, NULL, "image", rv_str(v->image));
	report_field(w, NULL, "reason", rv_str(v->reason));
	if (v->other_vendor)
		report_field(w, NULL, "other_vendor", rv_bool(true));
	report_field(w, NULL, "containers_without_image", rv_int((long long)v->failing));
	report_field(w, NULL, "containers_judged", rv_int((long long)v->judged));
	report_field(w, NULL, "containers_jit", rv_int((long long)v->jit));
	report_field(w, NULL, "containers_without_kernels", rv_int((long long)v->stubs));
}

void arch_driver_fields(struct report_rec *top, const struct arch_driver *d)
{
	struct report_rec w;
	char cuda[16] = "", isa[16] = "";

	report_rec_object(top, "driver", &w);
	if (!d->known) {
		report_fieldf(&w, "driver", NULL, rv_null(), "unknown (PTX ISA and compression not checked; use --driver)");
	} else {
		snprintf(cuda, sizeof(cuda), "%d.%d", d->cuda / 1000, (d->cuda % 1000) / 10);
		snprintf(isa, sizeof(isa), "%u.%u", d->ptx_isa_max / 100, d->ptx_isa_max % 100);
		report_fieldf(&w, "driver", "source", rv_str(d->source), "%s%s%s: CUDA %s, PTX JIT up to ISA %s", d->source,
			      d->version[0] ? " " : "", d->version, cuda, isa);
		if (d->version[0])
			report_field(&w, NULL, "version", rv_str(d->version));
		if (d->cuda)
			report_field(&w, NULL, "cuda_version", rv_str(cuda));
		if (d->ptx_isa_max)
			report_field(&w, NULL, "ptx_isa_max", rv_str(isa));
	}
	if (report_rec_end(&w) != CD_OK)
		return; /* the failure is top's now */
}

int arch_verdicts(struct report_rec *file, const struct arch_file *f, const struct arch_target *t,
		  struct arch_verdict *v, char *err)
{
	struct report *r = file->r;
	struct runtime_need need;
	struct driver_need_verdict dv;
	struct report_rec arr, it;
	int rc;

	if ((rc = arch_judge(f, t, v, err)) != CD_OK)
		return rc;
	runtime_need_of(f->data, f->size, &need);
	if (!need.known)
		runtime_need_of_library(f->path, &need);
	if (need.known)
		report_fieldf(file, "CUDA runtime", NULL, rv_null(), "%s: needs driver %s or newer", need.how,
			      need.min_driver_text[0] ? need.min_driver_text : "(unknown)");
	dv = driver_need_verdict(&need, &t->driver);
	if (driver_need_finding(r, f->path, &need, t, &dv) != CD_OK)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	report_rec_array(file, "verdicts", &arr);
	for (size_t i = 0; i < t->n_gpus; i++) {
		if (v[i].verdict == VERDICT_NONE)
			continue;
		if (arch_findings(r, f, t, &t->gpus[i], &v[i]) != CD_OK)
			return cd_fail(err, CD_ENOMEM, "out of memory");
		report_rec_item(&arr, &it);
		arch_verdict_fields(&it, &t->gpus[i], &v[i]);
		if (report_rec_end(&it) != CD_OK)
			break;
	}
	if (report_rec_end(&arr) != CD_OK)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	return CD_OK;
}
