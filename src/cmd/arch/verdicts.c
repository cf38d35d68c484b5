/* `arch` verdicts rendered: one line per GPU, the findings rules/arch calls for, and the
 * JSON objects arch and explain both print. */
#include <stdio.h>
#include <stdlib.h>

#include "cmd/arch/arch.h"
#include "rules/driver_need.h"
#include "util/err.h"

static int set(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v) ? CD_ENOMEM : CD_OK;
}

json_t *arch_verdict_json(const struct arch_gpu *g, const struct arch_verdict *v)
{
	json_t *jv = json_object();
	char cc[16];
	int bad;

	if (!jv)
		return NULL;
	snprintf(cc, sizeof(cc), "%u.%u", g->cc / 10, g->cc % 10);
	bad = set(jv, "gpu", json_string(g->name));
	bad |= set(jv, "compute_capability", json_string(cc));
	bad |= set(jv, "result", json_string(compat_verdict_name(v->verdict)));
	if (v->image[0])
		bad |= set(jv, "image", json_string(v->image));
	bad |= set(jv, "reason", json_string(v->reason));
	bad |= set(jv, "containers_without_image", json_integer((json_int_t)v->failing));
	bad |= set(jv, "containers_judged", json_integer((json_int_t)v->judged));
	bad |= set(jv, "containers_jit", json_integer((json_int_t)v->jit));
	bad |= set(jv, "containers_without_kernels", json_integer((json_int_t)v->stubs));
	if (bad) {
		json_decref(jv);
		return NULL;
	}
	return jv;
}

json_t *arch_driver_json(const struct arch_driver *d)
{
	json_t *j = json_object();
	int bad = 0;
	if (!j || !d->known)
		return j;
	bad |= set(j, "source", json_string(d->source));
	if (d->version[0])
		bad |= set(j, "version", json_string(d->version));
	if (d->cuda) {
		char v[16];
		snprintf(v, sizeof(v), "%d.%d", d->cuda / 1000, (d->cuda % 1000) / 10);
		bad |= set(j, "cuda_version", json_string(v));
	}
	if (d->ptx_isa_max) {
		char v[16];
		snprintf(v, sizeof(v), "%u.%u", d->ptx_isa_max / 100, d->ptx_isa_max % 100);
		bad |= set(j, "ptx_isa_max", json_string(v));
	}
	if (bad) {
		json_decref(j);
		return NULL;
	}
	return j;
}

int arch_verdicts(struct report *r, const struct arch_file *f, const struct arch_target *t, json_t **out,
		  char *err)
{
	struct arch_verdict *v = calloc(t->n_gpus ? t->n_gpus : 1, sizeof(*v));
	json_t *arr = json_array();
	int rc = CD_OK;

	*out = NULL;
	if (!v || !arr) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = arch_judge(f, t, v, err)) != CD_OK)
		goto out;
	{
		struct runtime_need need;
		struct driver_need_verdict dv;

		runtime_need_of(f->data, f->size, &need);
		if (need.known && report_kv(r, "CUDA runtime", "%s: needs driver %s or newer", need.how,
					    need.min_driver_text[0] ? need.min_driver_text : "(unknown)") != CD_OK) {
			rc = cd_fail(err, CD_ENOMEM, "out of memory");
			goto out;
		}
		dv = driver_need_verdict(&need, &t->driver);
		if (driver_need_finding(r, f->path, &need, &t->driver, &dv) != CD_OK) {
			rc = cd_fail(err, CD_ENOMEM, "out of memory");
			goto out;
		}
	}
	for (size_t i = 0; i < t->n_gpus; i++) {
		const struct arch_gpu *g = &t->gpus[i];
		json_t *jv;

		if (v[i].verdict == VERDICT_NONE)
			continue;
		if ((rc = arch_findings(r, f, t, g, &v[i])) != CD_OK ||
		    !(jv = arch_verdict_json(g, &v[i])) || json_array_append_new(arr, jv) ||
		    report_kv(r, g->name, "%s: %s", compat_verdict_name(v[i].verdict), v[i].reason) != CD_OK) {
			rc = cd_fail(err, CD_ENOMEM, "out of memory");
			goto out;
		}
	}
	*out = arr;
	arr = NULL;
out:
	json_decref(arr);
	free(v);
	return rc;
}
