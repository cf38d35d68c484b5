/* Reads `cudoctor --json` reports into the fleet: the header that says whose report it is,
 * then per command the facts that may differ between nodes, the findings and the lab
 * numbers. Trusts nothing in the input: every key is checked for its type before use. */
#include "fleet/fleet.h"
#include "fleet/names.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/json_compat.h"
#include "util/err.h"
#include "util/str.h"
#include "util/version.h"

#ifndef CUDOCTOR_VERSION
#define CUDOCTOR_VERSION "0.0.0"
#endif

#define FACT_MAX 512

static const char *str_at(const json_t *o, const char *key)
{
	const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static int bool_at(const json_t *o, const char *key) /* 1, 0, or -1 unknown */
{
	const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
	return json_is_boolean(v) ? json_is_true(v) : -1;
}

/* The node a report names itself: "node" at the top, or the report header's; *field says
 * which key it was. */
static const char *report_node(const json_t *root, const char **field)
{
	const json_t *h = json_object_get(root, "header");
	const char *s = str_at(root, "node");

	*field = "node";
	if (!s || !*s)
		s = str_at(h, "node"), *field = "header.node";
	if (!s || !*s)
		s = str_at(h, "hostname"), *field = "header.hostname";
	return s && *s ? s : NULL;
}

/* "on", "off", "unknown", or per GPU "on,off" when the GPUs differ. */
static int gpu_modes(struct fleet_node *n, enum fleet_fact fact, const json_t *gpus, const char *key)
{
	char buf[FACT_MAX] = "", first[16] = "";
	size_t used = 0, i;
	bool same = true, any = false;
	const json_t *g;

	json_array_foreach(gpus, i, g) {
		int b = bool_at(g, key);
		const char *w = b < 0 ? "unknown" : b ? "on" : "off";
		int k;
		if (b >= 0)
			any = true;
		if (i == 0)
			snprintf(first, sizeof first, "%s", w);
		else if (strcmp(first, w) != 0)
			same = false;
		k = snprintf(buf + used, sizeof buf - used, "%s%s", i ? "," : "", w);
		if (k < 0 || (size_t)k >= sizeof buf - used)
			break;
		used += (size_t)k;
	}
	if (!any)
		return CD_OK;
	return fleet_node_fact(n, fact, same ? first : buf);
}

/* "2x NVIDIA H200 + 1x NVIDIA A100-SXM4-80GB", models in the order first seen; "none". */
static int gpu_models(struct fleet_node *n, const json_t *gpus)
{
	const char *names[64];
	size_t counts[64], n_names = 0, i;
	const json_t *g;
	struct strbuf sb;
	char *s;
	int rc;

	json_array_foreach(gpus, i, g) {
		const char *name = str_at(g, "name");
		size_t k;
		if (!name)
			name = "unknown GPU";
		for (k = 0; k < n_names && strcmp(names[k], name) != 0; k++)
			;
		if (k == n_names) {
			if (n_names == sizeof names / sizeof names[0])
				continue;
			names[n_names] = name;
			counts[n_names++] = 0;
		}
		counts[k]++;
	}
	if (n_names == 0)
		return fleet_node_fact(n, FF_GPUS, "none");
	sb_init(&sb);
	for (i = 0; i < n_names; i++)
		sb_printf(&sb, "%s%zux %s", i ? " + " : "", counts[i], names[i]);
	if (!(s = sb_detach(&sb)))
		return CD_ENOMEM;
	rc = fleet_node_fact(n, FF_GPUS, s);
	free(s);
	return rc;
}

/* The entry of arr the loader picks (picked: true), else none. */
static const json_t *picked(const json_t *arr, const char *library)
{
	size_t i;
	const json_t *e;

	json_array_foreach(arr, i, e) {
		const char *lib = str_at(e, "library");
		if (library && (!lib || strcmp(lib, library) != 0))
			continue;
		if (bool_at(e, "picked") == 1)
			return e;
	}
	return NULL;
}

/* The driver and GPU facts doctor and devices share (one spelling: old reports were
 * upgraded by report_json_upgrade). */
static int driver_gpu_facts(struct fleet_node *n, const json_t *root)
{
	const json_t *d = json_object_get(root, "driver"), *gpus = json_object_get(root, "gpus");
	int rc = CD_OK;

	TRY(fleet_node_fact(n, FF_DRIVER, str_at(d, "version")));
	TRY(fleet_node_fact(n, FF_CUDA, str_at(d, "cuda_version")));
	if (json_is_array(gpus)) {
		TRY(gpu_models(n, gpus));
		TRY(gpu_modes(n, FF_MIG, gpus, "mig_mode_current"));
		TRY(gpu_modes(n, FF_PERSISTENCE, gpus, "persistence_mode"));
		TRY(gpu_modes(n, FF_ECC, gpus, "ecc_mode_current"));
	}
out:
	return rc;
}

/* doctor's own: the toolkit a build uses, the runtime and NCCL the loader picks, PyTorch */
static int doctor_facts(struct fleet_node *n, const json_t *root)
{
	const json_t *tks = json_object_get(root, "toolkits"), *py = json_object_get(root, "python");
	const json_t *e, *fws;
	size_t i;
	int rc = CD_OK;

	json_array_foreach(tks, i, e)
		if (bool_at(e, "selected") == 1)
			TRY(fleet_node_fact(n, FF_TOOLKIT, str_at(e, "version")));
	if (json_is_array(tks))
		TRY(fleet_node_fact(n, FF_TOOLKIT, "none selected"));
	if ((e = picked(json_object_get(root, "runtimes"), NULL)))
		TRY(fleet_node_fact(n, FF_RUNTIME, str_at(e, "version")));
	if ((e = picked(json_object_get(root, "libraries"), "libnccl")))
		TRY(fleet_node_fact(n, FF_NCCL, str_at(e, "version")));
	fws = json_object_get(py, "frameworks");
	json_array_foreach(fws, i, e) {
		const char *name = str_at(e, "name"), *v = str_at(e, "version"), *cuda = str_at(e, "cuda");
		char buf[FACT_MAX];
		if (!name || strcmp(name, "torch") != 0 || !v)
			continue;
		if (bool_at(e, "cpu_only") == 1)
			snprintf(buf, sizeof buf, "%s (CPU only)", v);
		else
			snprintf(buf, sizeof buf, "%s (CUDA %s)", v, cuda ? cuda : "unknown");
		TRY(fleet_node_fact(n, FF_TORCH, buf));
	}
	if (json_is_object(py))
		TRY(fleet_node_fact(n, FF_TORCH, "none"));
out:
	return rc;
}

/* Each lab's measurements, one sample per (lab, label); failed labs measured nothing. */
static int lab_samples(struct fleet_node *n, const json_t *root)
{
	const json_t *labs = json_object_get(root, "labs"), *gpu = json_object_get(root, "fleet_gpu");
	const json_t *lab, *m;
	int g = json_is_integer(gpu) && json_integer_value(gpu) >= 0 && json_integer_value(gpu) < 1 << 16
			? (int)json_integer_value(gpu) : -1;
	size_t i, k;
	int rc = CD_OK;

	json_array_foreach(labs, i, lab) {
		const char *name = str_at(lab, "name"), *verdict = str_at(lab, "verdict");
		if (!name || (verdict && strcmp(verdict, "failed") == 0))
			continue;
		json_array_foreach(json_object_get(lab, "measurements"), k, m) {
			const char *label = str_at(m, "label");
			const json_t *v = json_object_get(m, "value");
			char metric[FACT_MAX];
			if (!label || !json_is_number(v) || !isfinite(json_number_value(v)))
				continue;
			snprintf(metric, sizeof metric, "%s: %s", name, label);
			TRY(fleet_node_sample(n, metric, str_at(m, "unit"), g, json_number_value(v)));
		}
	}
out:
	return rc;
}

/* A finite number at key, scaled; false when the row has none */
static bool number_at(const json_t *o, const char *key, double scale, double *v)
{
	const json_t *j = json_object_get(o, key);

	if (!json_is_number(j) || !isfinite(json_number_value(j)))
		return false;
	*v = json_number_value(j) * scale;
	return true;
}

/* check's load rows: each GPU's memory test bandwidth, GEMM rate (per type and size, which
 * set what the GPU reaches) and pinned copies, one sample each; a row the tests could not
 * run on measured nothing. */
static int check_samples(struct fleet_node *n, const json_t *root)
{
	const json_t *rows = json_object_get(json_object_get(root, "load"), "gpus"), *row;
	size_t i;
	int rc = CD_OK;

	json_array_foreach(rows, i, row) {
		const json_t *gi = json_object_get(row, "gpu_index");
		const char *dtype = str_at(row, "gemm_dtype");
		const json_t *gn = json_object_get(row, "gemm_n");
		char metric[FACT_MAX];
		double v;
		int g;

		if (!json_is_integer(gi) || json_integer_value(gi) < 0 || json_integer_value(gi) >= 1 << 16)
			continue;
		g = (int)json_integer_value(gi);
		if (number_at(row, "bandwidth_bytes_per_s", 1e-9, &v))
			TRY(fleet_node_sample(n, FLEET_CHECK_METRIC "memory test bandwidth", "GB/s", g, v));
		if (dtype && json_is_integer(gn) && number_at(row, "gemm_flops", 1e-12, &v)) {
			snprintf(metric, sizeof metric, FLEET_CHECK_METRIC "GEMM %.8s %lld^3", dtype,
				 (long long)json_integer_value(gn));
			TRY(fleet_node_sample(n, metric, "TFLOP/s", g, v));
		}
		if (number_at(row, "copy_h2d_bytes_per_s", 1e-9, &v))
			TRY(fleet_node_sample(n, FLEET_CHECK_METRIC "pinned copy host to device", "GB/s", g, v));
		if (number_at(row, "copy_d2h_bytes_per_s", 1e-9, &v))
			TRY(fleet_node_sample(n, FLEET_CHECK_METRIC "pinned copy device to host", "GB/s", g, v));
	}
out:
	return rc;
}

static long long count_at(const json_t *o, const char *key)
{
	const json_t *j = json_object_get(o, key);

	return json_is_integer(j) && json_integer_value(j) >= 0 && json_integer_value(j) < 1 << 20 ? json_integer_value(j) : -1;
}

/* check's verdict per GPU (gpus[].healthy) and its GPU count, for the fleet's gauges */
static int check_health(struct fleet_node *n, const json_t *root)
{
	const json_t *gpus = json_object_get(root, "gpus"), *g, *count = json_object_get(root, "gpu_count");
	size_t i;
	int rc = CD_OK;

	json_array_foreach(gpus, i, g) {
		const json_t *h = json_object_get(g, "healthy"), *ix = json_object_get(g, "nvml_index");
		int gpu = -1;

		if (!json_is_boolean(h))
			continue;
		if (!json_is_integer(ix) || json_integer_value(ix) < 0)
			ix = json_object_get(g, "cuda_ordinal");
		if (json_is_integer(ix) && json_integer_value(ix) >= 0 && json_integer_value(ix) < 1 << 16)
			gpu = (int)json_integer_value(ix);
		TRY(fleet_node_health(n, gpu, str_at(g, "uuid"), str_at(g, "pci_bus_id"), json_is_true(h)));
	}
	if (json_is_object(count)) {
		n->gpu_count[FLEET_COUNT_PCI] = count_at(count, "pci");
		n->gpu_count[FLEET_COUNT_NVML] = count_at(count, "nvml");
		n->gpu_count[FLEET_COUNT_CUDA] = count_at(count, "cuda");
		n->gpu_count[FLEET_COUNT_EXPECTED] = count_at(count, "expected");
		n->have_count = true;
	}
out:
	return rc;
}

static int read_findings(struct fleet_node *n, const json_t *findings, char *err)
{
	const json_t *fd, *fx;
	size_t i, k;
	int rc = CD_OK;

	if (!json_is_array(findings))
		return cd_fail(err, CD_EFORMAT, "\"findings\" is not an array");
	json_array_foreach(findings, i, fd) {
		const char *id = str_at(fd, "id"), *sev = str_at(fd, "severity");
		enum severity s;
		struct strbuf sb;
		char *fix;
		if (!id || !*id || !sev)
			return cd_fail(err, CD_EFORMAT, "findings[%zu] has no id or severity", i);
		/* ids go into the drain lines' reasons: only the alphabet ids are written in */
		if (!fleet_finding_id_ok(id))
			return cd_fail(err, CD_EFORMAT, "findings[%zu].id '%.64s' is not a finding id (a-z, 0-9 and '-')",
				       i, id);
		if (strcmp(sev, "error") == 0)
			s = SEV_ERROR;
		else if (strcmp(sev, "warn") == 0)
			s = SEV_WARN;
		else if (strcmp(sev, "info") == 0)
			s = SEV_INFO;
		else if (strcmp(sev, "ok") == 0)
			s = SEV_OK;
		else
			return cd_fail(err, CD_EFORMAT, "findings[%zu] (%s) has severity '%.40s'", i, id, sev);
		sb_init(&sb);
		json_array_foreach(json_object_get(fd, "fix"), k, fx)
			if (json_is_string(fx))
				sb_printf(&sb, "%s%s", sb.len ? "\n" : "", json_string_value(fx));
		if (!(fix = sb_detach(&sb)))
			return CD_ENOMEM;
		/* check's load findings are about one GPU, which their subject names */
		if (strncmp(id, "load-", 5) == 0 && str_at(fd, "subject") && str_at(fd, "title")) {
			char *t = cd_asprintf("%s: %s", str_at(fd, "subject"), str_at(fd, "title"));
			rc = t ? fleet_node_finding(n, id, s, t, fix) : CD_ENOMEM;
			free(t);
		} else
			rc = fleet_node_finding(n, id, s, str_at(fd, "title"), fix);
		free(fix);
		if (rc != CD_OK)
			return rc;
	}
	return CD_OK;
}

static int read_one(struct fleet *f, json_t *root, const char *fallback, bool nested, char *err);

/* What a rank sends: its node's doctor, devices and lab reports, or why it has none. */
static int read_bundle(struct fleet *f, const json_t *root, const char *name, char *err)
{
	json_t *reports = json_object_get(root, "reports"), *r;
	const char *failure = str_at(root, "failure");
	struct fleet_node *n = fleet_node_get(f, name);
	size_t i;
	int rc;

	if (!n)
		return CD_ENOMEM;
	if (failure && (rc = fleet_node_failed(n, failure)) != CD_OK)
		return rc;
	if (!json_is_array(reports))
		return cd_fail(err, CD_EFORMAT, "fleet-node report of %s has no \"reports\" array", name);
	json_array_foreach(reports, i, r) {
		char sub[CD_ERRMSG];
		if ((rc = read_one(f, r, name, true, sub)) == CD_ENOMEM)
			return rc;
		if (rc != CD_OK)
			return cd_fail(err, rc, "reports[%zu]: %s", i, sub);
	}
	return CD_OK;
}

static int read_one(struct fleet *f, json_t *root, const char *fallback, bool nested, char *err)
{
	const char *tool, *version, *command, *name, *field;
	struct version theirs, ours;
	struct fleet_node *n;
	int rc;

	if (!json_is_object(root))
		return cd_fail(err, CD_EFORMAT, "not a JSON object");
	tool = str_at(root, "tool");
	if (!tool || strcmp(tool, "cudoctor") != 0)
		return cd_fail(err, CD_EFORMAT, "not a cudoctor report (no \"tool\": \"cudoctor\")");
	version = str_at(root, "version");
	if (!version || version_parse(version, &theirs) != CD_OK)
		return cd_fail(err, CD_EFORMAT, "cudoctor report without a readable \"version\"");
	if (version_parse(CUDOCTOR_VERSION, &ours) == CD_OK && theirs.major > ours.major)
		return cd_fail(err, CD_EUNSUPPORTED, "written by cudoctor %.32s, a newer major version than this %s",
			       version, CUDOCTOR_VERSION);
	command = str_at(root, "command");
	if (!command)
		return cd_fail(err, CD_EFORMAT, "cudoctor report without a \"command\"");
	name = report_node(root, &field);
	if (!name)
		name = fallback, field = "its file's name: the report names no node";
	/* the name goes into shell lines and file names: a host name or nothing of the report */
	if (!fleet_node_name_ok(name))
		return cd_fail(err, CD_EFORMAT,
			       "node name '%.64s' (%s) is not a host name (RFC 1123: letters, digits, '-', '.')", name,
			       field);
	if (strcmp(command, "fleet-node") == 0 && !nested)
		return read_bundle(f, root, name, err);
	if (strcmp(command, "doctor") != 0 && strcmp(command, "devices") != 0 && strcmp(command, "lab") != 0 &&
	    strcmp(command, "check") != 0)
		return cd_fail(err, CD_EUNSUPPORTED,
			       "a '%.32s' report: the fleet reads doctor, devices, lab and check reports", command);
	if (!(n = fleet_node_get(f, name)))
		return CD_ENOMEM;
	if ((rc = read_findings(n, json_object_get(root, "findings"), err)) != CD_OK)
		return rc;
	if (strcmp(command, "lab") == 0)
		return lab_samples(n, root);
	if (strcmp(command, "check") == 0)
		return (rc = check_samples(n, root)) != CD_OK ? rc : check_health(n, root);
	/* a report of an earlier release: today's spelling first */
	if ((rc = report_json_upgrade(root)) != CD_OK || (rc = driver_gpu_facts(n, root)) != CD_OK)
		return rc;
	return strcmp(command, "doctor") == 0 ? doctor_facts(n, root) : CD_OK;
}

int fleet_read_report(struct fleet *f, const unsigned char *data, size_t size, const char *fallback_name,
		      char *err)
{
	struct fleet one;
	json_error_t je;
	json_t *root;
	int rc;

	if (size > FLEET_REPORT_MAX)
		return cd_fail(err, CD_EFORMAT, "%zu bytes: larger than any report cudoctor writes (at most %zu MiB read)",
			       size, FLEET_REPORT_MAX >> 20);
	if (!data || !size) /* jansson calls a NULL buffer "wrong arguments" */
		return cd_fail(err, CD_EFORMAT, "an empty file, not a report");
	root = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &je);
	/* memory, not the report: never a node skipped as if its report were bad */
	if (!root && json_error_code(&je) == json_error_out_of_memory)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	if (!root) {
		size_t end = size;
		bool truncated;
		while (end > 0 && (data[end - 1] == '\n' || data[end - 1] == ' ' || data[end - 1] == '\r' ||
				   data[end - 1] == '\t'))
			end--;
		/* an error where the input ends: the file was cut off, not written wrong */
		truncated = je.position >= 0 && (size_t)je.position >= end;
		return cd_fail(err, CD_EFORMAT, "%s JSON at byte %d: %s", truncated ? "truncated" : "not valid",
			       je.position, je.text);
	}
	/* into a scratch fleet first: a report that fails half-way adds nothing */
	fleet_init(&one);
	rc = read_one(&one, root, fallback_name, false, err);
	if (rc == CD_OK)
		rc = fleet_merge(f, &one, str_at(root, "command"), str_at(json_object_get(root, "header"), "date"));
	json_decref(root);
	fleet_free(&one);
	if (rc == CD_ENOMEM)
		cd_fail(err, rc, "out of memory");
	return rc;
}
