/* The deployment checks: what the kernel log, the loaded modules and the environment say
 * about whether CUDA work can run reliably on this machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb/kb.h"
#include "rules/catalogue.h"
#include "rules/deploy.h"
#include "rules/internal.h"
#include "util/err.h"

/* domain, bus and device of "0000:18:00", "0000:18:00.0" or "18:00.0" */
static bool pci_parts(const char *s, unsigned long parts[3])
{
	unsigned long v[3];
	int n = 0;
	const char *p = s;
	char *end;

	while (n < 3) {
		v[n++] = strtoul(p, &end, 16);
		if (end == p)
			return false;
		if (*end != ':')
			break;
		p = end + 1;
	}
	if (n == 2) {
		parts[0] = 0;
		parts[1] = v[0];
		parts[2] = v[1];
	} else if (n == 3) {
		parts[0] = v[0];
		parts[1] = v[1];
		parts[2] = v[2];
	} else
		return false;
	return true;
}

int deploy_event_gpu(const struct xid_event *e, const struct gpu_probe *gp)
{
	unsigned long a[3], b[3];

	if (e->kind == XID_EVENT_SXID || !e->pci[0] || !pci_parts(e->pci, a))
		return -1;
	for (size_t i = 0; i < gp->n_gpus; i++)
		if (gp->gpus[i].pci_bus_id[0] && pci_parts(gp->gpus[i].pci_bus_id, b) && a[0] == b[0] && a[1] == b[1] &&
		    a[2] == b[2])
			return (int)i;
	return -1;
}

static bool sxid_fatal(const struct xid_event *e)
{
	return strstr(e->text, "Fatal") && !strstr(e->text, "Non-fatal") && !strstr(e->text, "Nonfatal");
}

/* Xid 154 names the recovery another Xid needs: "... changed from 0x0 (None) to 0x2 (Node
 * Reboot Required)"; a change to None needs nothing */
static bool xid154_to_none(const struct xid_event *e)
{
	return strstr(e->text, "to 0x0 (None)") != NULL;
}

/* The grade kb/xid_buckets.tsv gives the bucket; an unknown one is an error */
static enum severity bucket_severity(const struct kb_xid_bucket *b)
{
	if (b && strcmp(b->severity, "info") == 0)
		return SEV_INFO;
	if (b && strcmp(b->severity, "warn") == 0)
		return SEV_WARN;
	return SEV_ERROR;
}

enum severity deploy_event_severity(const struct xid_event *e)
{
	const struct kb_xid *x;

	if (e->kind == XID_EVENT_OFF_BUS)
		return SEV_ERROR;
	if (e->kind == XID_EVENT_SXID)
		return sxid_fatal(e) ? SEV_ERROR : SEV_WARN;
	if (!(x = kb_xid_find(e->xid)))
		return SEV_ERROR;
	if (strcmp(x->bucket, "XID_154") == 0 && xid154_to_none(e))
		return SEV_INFO;
	return bucket_severity(kb_xid_bucket_find(x->bucket));
}

const char *deploy_event_means(const struct xid_event *e)
{
	const struct kb_xid_bucket *b;
	const struct kb_xid *x;

	if (e->kind != XID_EVENT_XID || !(x = kb_xid_find(e->xid)))
		return NULL;
	if (strcmp(x->bucket, "XID_154") == 0 && xid154_to_none(e))
		return "the recovery the other Xid needs changed to none: no action needed";
	b = kb_xid_bucket_find(x->bucket);
	return b ? b->means : NULL;
}

static void event_label(const struct xid_event *e, char *out, size_t n)
{
	if (e->kind == XID_EVENT_OFF_BUS)
		snprintf(out, n, "GPU fallen off the bus");
	else
		snprintf(out, n, "%s %d", e->kind == XID_EVENT_SXID ? "SXid" : "Xid", e->xid);
}

static void event_when(const struct xid_event *e, char *out, size_t n)
{
	if (e->first_usec < 0)
		snprintf(out, n, "time not logged");
	else if (e->count > 1)
		snprintf(out, n, "first %lld.%03lld s, last %lld.%03lld s after boot", e->first_usec / 1000000,
			 e->first_usec / 1000 % 1000, e->last_usec / 1000000, e->last_usec / 1000 % 1000);
	else
		snprintf(out, n, "%lld.%03lld s after boot", e->first_usec / 1000000, e->first_usec / 1000 % 1000);
}

int deploy_event_evidence(struct finding *f, const struct xid_event *e)
{
	const struct kb_xid *x = e->kind == XID_EVENT_XID ? kb_xid_find(e->xid) : NULL;
	char label[48], when[96], pid[40] = "";
	bool oom = false;

	event_label(e, label, sizeof label);
	event_when(e, when, sizeof when);
	if (e->pid >= 0)
		snprintf(pid, sizeof pid, ", pid %lld", e->pid);
	oom |= finding_evidence(f, "%s, logged %lu time%s (%s%s): %s", label, e->count, e->count == 1 ? "" : "s", when, pid,
				e->text[0] ? e->text : "(no text)") != CD_OK;
	if (x) {
		oom |= finding_evidence(f, "Xid %d is %s (%s): %s; action: %s", e->xid, x->name, x->kind, x->meaning,
					x->action) != CD_OK;
		oom |= finding_evidence(f, "Xid %d in NVIDIA's catalogue: immediate action %s, graded %s: %s", e->xid,
					x->bucket, severity_name(deploy_event_severity(e)), deploy_event_means(e)) != CD_OK;
	}
	else if (e->kind == XID_EVENT_XID)
		oom |= finding_evidence(f, "Xid %d is not in cudoctor's table; look it up in NVIDIA's catalogue", e->xid) != CD_OK;
	else if (e->kind == XID_EVENT_SXID)
		oom |= finding_evidence(f, "SXid %d is an NVSwitch error (%s); action: %s", e->xid,
					sxid_fatal(e) ? "fatal" : "non-fatal",
					sxid_fatal(e) ? "drain the node, reset the NVSwitch and GPUs (or reboot), and check the fabric manager's log"
						      : "watch for it to repeat; a fatal SXid needs a reset") != CD_OK;
	else
		oom |= finding_evidence(f, "the GPU stopped answering on PCIe; action: drain the node and reboot; check power, "
					   "cooling, seating and risers") != CD_OK;
	return rules_status(oom);
}

/* the device of event i names one finding: every event on it is its evidence */
static bool same_device(const struct xid_event *a, const struct xid_event *b)
{
	return (a->kind == XID_EVENT_SXID) == (b->kind == XID_EVENT_SXID) && strcmp(a->pci, b->pci) == 0;
}

static int xid_findings(const struct kmsg_events *k, const struct gpu_probe *gp, struct report *r)
{
	bool oom = false;

	for (size_t i = 0; i < k->n; i++) {
		const struct xid_event *e = &k->ev[i];
		enum severity sev = SEV_INFO;
		char subject[320];
		struct finding *f;
		bool seen = false;
		int g;

		for (size_t j = 0; j < i && !seen; j++)
			seen = same_device(&k->ev[j], e);
		if (seen)
			continue;
		for (size_t j = i; j < k->n; j++)
			if (same_device(&k->ev[j], e) && deploy_event_severity(&k->ev[j]) > sev)
				sev = deploy_event_severity(&k->ev[j]);
		if ((g = deploy_event_gpu(e, gp)) >= 0)
			gpu_subject(&gp->gpus[g], subject, sizeof subject);
		else if (e->kind == XID_EVENT_SXID)
			snprintf(subject, sizeof subject, "NVSwitch %s", e->pci[0] ? e->pci : "(device not logged)");
		else
			snprintf(subject, sizeof subject, "GPU at PCI %s", e->pci[0] ? e->pci : "(not logged)");
		f = finding_make(r, sev, "xid-errors", subject, NULL);
		oom |= !f;
		for (size_t j = i; j < k->n && f; j++)
			if (same_device(&k->ev[j], e))
				oom |= deploy_event_evidence(f, &k->ev[j]) != CD_OK;
		if (f && g < 0 && e->pci[0] && e->kind != XID_EVENT_SXID && gp->n_gpus)
			oom |= finding_evidence(f, "no GPU the driver lists now is at PCI %s", e->pci) != CD_OK;
		if (f && k->truncated)
			oom |= finding_evidence(f, "the log holds more than %d distinct events; the first %d are shown",
						KMSG_MAX_EVENTS, KMSG_MAX_EVENTS) != CD_OK;
	}
	return rules_status(oom);
}

static int kmsg_unread(const struct kmsg_events *k, struct report *r)
{
	bool oom = false;
	struct finding *f;

	if (k->state != KMSG_DENIED && k->state != KMSG_FAILED)
		return CD_OK;
	f = finding_make(r, SEV_INFO, "kernel-log-unread", "/dev/kmsg", NULL);
	oom |= !f;
	oom |= finding_evidence(f, "/dev/kmsg: %s", k->sys_errno ? strerror(k->sys_errno) : "read failed") != CD_OK;
	return rules_status(oom);
}

static int nouveau_loaded(const struct kernel_modules *m, struct report *r)
{
	bool oom = false;
	struct finding_vars v;
	struct finding *f;

	if (!m->read || !m->nouveau)
		return CD_OK;
	finding_vars_init(&v);
	finding_flag(&v, "nvidia", m->nvidia);
	f = finding_make(r, SEV_ERROR, "nouveau-loaded", "nouveau", &v);
	oom |= !f;
	oom |= finding_evidence(f, "/proc/modules: nouveau loaded; nvidia %s", m->nvidia ? "loaded" : "not loaded") != CD_OK;
	return rules_status(oom);
}

/* What each variable does; a variable is judged when set to anything but "0" (or, for
 * names marked any, when set at all). Sources: the CUDA Programming Guide's environment
 * variables, and DCGM's list of variables that hurt CUDA (its software test). */
static const struct env_row {
	const char *name;
	bool any;             /* any value counts, "0" too (a path, a number) */
	struct cuda_env_effect e;
} env_rows[] = {
	{ "CUDA_LAUNCH_BLOCKING", false, { SEV_WARN, "cuda-env/launch-blocking" } },
	{ "CUDA_DEVICE_MAX_CONNECTIONS", true, { SEV_INFO, "cuda-env/max-connections" } },
	{ "CUDA_CACHE_DISABLE", false, { SEV_WARN, "cuda-env/cache-disable" } },
	{ "CUDA_MODULE_LOADING", true, { SEV_INFO, "cuda-env/module-loading" } },
	{ "CUDA_FORCE_PTX_JIT", false, { SEV_WARN, "cuda-env/force-jit" } },
	{ "CUDA_FORCE_JIT", false, { SEV_WARN, "cuda-env/force-jit" } },
	{ "CUDA_DISABLE_PTX_JIT", false, { SEV_INFO, "cuda-env/disable-jit" } },
	{ "CUDA_DISABLE_JIT", false, { SEV_INFO, "cuda-env/disable-jit" } },
	{ "CUDA_DISABLE_PERF_BOOST", false, { SEV_WARN, "cuda-env/perf-boost" } },
	{ "CUDA_AUTO_BOOST", true, { SEV_INFO, "cuda-env/auto-boost" } },
	{ "CUDA_DEVICE_WAITS_ON_EXCEPTION", false, { SEV_WARN, "cuda-env/waits-on-exception" } },
	{ "CUDA_ENABLE_COREDUMP_ON_EXCEPTION", false, { SEV_WARN, "cuda-env/coredump-on-exception" } },
	{ "CUDA_COREDUMP_FILE", true, { SEV_INFO, "cuda-env/coredump-file" } },
	{ "CUDA_INJECTION64_PATH", true, { SEV_WARN, "cuda-env/injection" } },
	{ "CUDA_INJECTION32_PATH", true, { SEV_WARN, "cuda-env/injection" } },
	{ "NSIGHT_CUDA_DEBUGGER", false, { SEV_WARN, "cuda-env/nsight-debugger" } },
	{ "CUDA_PROFILE", false, { SEV_WARN, "cuda-env/profile" } },
	{ "COMPUTE_PROFILE", false, { SEV_WARN, "cuda-env/profile" } },
	{ "OPENCL_PROFILE", false, { SEV_WARN, "cuda-env/opencl-profile" } },
};

const struct cuda_env_effect *deploy_env_effect(const char *name, const char *value)
{
	for (size_t i = 0; i < sizeof env_rows / sizeof env_rows[0]; i++) {
		const struct env_row *row = &env_rows[i];

		if (strcmp(row->name, name) != 0)
			continue;
		if (!value || (!row->any && (!*value || strcmp(value, "0") == 0)))
			return NULL;
		/* the default lazy loading is what everyone gets: only EAGER changes it */
		if (strcmp(name, "CUDA_MODULE_LOADING") == 0 && strcmp(value, "EAGER") != 0)
			return NULL;
		return &row->e;
	}
	return NULL;
}

static int cuda_env(const char *const *env, struct report *r)
{
	bool oom = false;

	for (size_t i = 0; env && env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		const struct cuda_env_effect *e;
		struct finding_vars v;
		char name[64];
		struct finding *f;

		if (!eq || (size_t)(eq - env[i]) >= sizeof name)
			continue;
		memcpy(name, env[i], (size_t)(eq - env[i]));
		name[eq - env[i]] = '\0';
		if (!(e = deploy_env_effect(name, eq + 1)))
			continue;
		finding_vars_init(&v);
		finding_var(&v, "name", "%s", name);
		finding_var(&v, "value", "%.80s", eq + 1);
		finding_flag(&v, "thirty_two", strcmp(name, "CUDA_INJECTION32_PATH") == 0);
		f = finding_make(r, e->sev == SEV_WARN ? SEV_WARN : SEV_INFO, e->row, name, &v);
		oom |= !f;
		oom |= finding_evidence(f, "%s=\"%.200s\" in this environment", name, eq + 1) != CD_OK;
	}
	return rules_status(oom);
}

int rules_deploy(const struct deploy_info *d, const struct gpu_probe *gp, bool say_unread, struct report *r)
{
	int rc;

	if ((rc = xid_findings(&d->kmsg, gp, r)) != CD_OK)
		return rc;
	if (say_unread && (rc = kmsg_unread(&d->kmsg, r)) != CD_OK)
		return rc;
	if ((rc = nouveau_loaded(&d->mods, r)) != CD_OK)
		return rc;
	return cuda_env(d->env, r);
}

int rules_deploy_platform(const struct facts *f, struct report *r)
{
	static const rules_fn rules[] = { rule_visible_devices, rule_device_nodes, rule_persistence };

	return rules_run_table(rules, sizeof rules / sizeof rules[0], f, r);
}
