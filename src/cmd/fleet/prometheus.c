/* --prometheus DIR: one NODE.prom per node in node_exporter's textfile format, written to
 * a temporary name and renamed, so the collector never reads half a file; its gauges are
 * records of the node's facts (below). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd/fleet/fleet.h"
#include "fleet/fleet.h"
#include "os/fs.h"
#include "report/render.h"
#include "util/err.h"
#include "util/outfile.h"

/* A node's metrics are records of what the fleet read of it, each written through a field
 * table whose fields carry their metric and labels, and rendered as every command's metrics
 * are (render_prometheus_facts): one description per gauge. */
struct prom_status {
	const char *node;
	bool reported, failed; /* failed: known only for a node that reported */
};

struct prom_info {
	const char *node;
	const char *facts[FF_COUNT]; /* "" where no report said */
};

struct prom_finding {
	const char *node, *id, *severity;
};

struct prom_counts {
	const char *node;
	long long info, warn, error;
};

struct prom_health {
	const char *node;
	char gpu[16];          /* "" unknown */
	const char *uuid, *bus;
	bool healthy;
};

struct prom_seen {
	const char *node;
	long long count[FLEET_COUNT_N]; /* -1 unknown */
};

struct prom_sample {
	const char *node;
	char gpu[16];
	const char *metric, *unit;
	double value;
};

#define NODE(type) { .key = "node", .kind = FK_CSTR, .off = offsetof(struct type, node), .valid = FIELD_ALWAYS, \
		     .flags = FIELD_PROM_ID, .prom_label = "node" }
#define LABEL(type, m, name) { .key = name, .kind = FK_CSTR, .off = offsetof(struct type, m), .valid = FIELD_ALWAYS, \
			       .flags = FIELD_PROM_ID | FIELD_EMPTY_KNOWN, .prom_label = name }
#define GPU(type) { .key = "gpu", .kind = FK_CHARS, .off = offsetof(struct type, gpu), .valid = FIELD_ALWAYS, \
		    .flags = FIELD_PROM_ID | FIELD_EMPTY_KNOWN, .prom_label = "gpu" }
#define TABLE(name, fields) { name, fields, sizeof fields / sizeof fields[0], -1, NULL, NULL }

static const struct field_metric reported_metric = { "cudoctor_node_reported", "gauge",
						     "1 when the node's report reached the fleet", 0, NULL, NULL };
static const struct field_metric failed_metric = { "cudoctor_node_collect_failed", "gauge",
						   "1 when the node could not collect its report", 0, NULL, NULL };

static const struct field status_fields[] = {
	NODE(prom_status),
	{ .key = "reported", .kind = FK_BOOL, .off = offsetof(struct prom_status, reported), .valid = FIELD_ALWAYS,
	  .metric = &reported_metric },
	{ .key = "collect_failed", .kind = FK_BOOL, .off = offsetof(struct prom_status, failed), .valid = FIELD_ALWAYS,
	  .flags = FIELD_IF_FLAG, .flag = offsetof(struct prom_status, reported), .metric = &failed_metric },
};
static const struct field_table status_table = TABLE("fleet.prometheus.status", status_fields);

/* the fleet's facts as labels, by their JSON keys (fleet/fleet.h's FLEET_FACTS) */
#define FACT(k, name, label_) { .key = name, .kind = FK_CSTR, .off = offsetof(struct prom_info, facts) + (k) * sizeof(char *), \
			.valid = FIELD_ALWAYS, .flags = FIELD_EMPTY_KNOWN, .prom_label = name },
static const struct field info_fields[] = {
	NODE(prom_info),
	FLEET_FACTS(FACT)
};
static const struct field_table info_table = {
	"fleet.prometheus.info", info_fields, sizeof info_fields / sizeof info_fields[0], -1, "cudoctor_node_info",
	"the node's stack, as labels",
};

static bool one(const void *obj, struct field_value *v)
{
	(void)obj;
	v->kind = FV_INT;
	v->i = 1;
	return true;
}

static const struct field_metric finding_metric = { "cudoctor_finding", "gauge", "one finding of the node's report",
						    0, NULL, NULL };
static const struct field finding_fields[] = {
	NODE(prom_finding),
	LABEL(prom_finding, id, "id"),
	LABEL(prom_finding, severity, "severity"),
	{ .key = "value", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = one, .metric = &finding_metric },
};
static const struct field_table finding_table = TABLE("fleet.prometheus.findings", finding_fields);

static const struct field_metric count_metrics[] = {
	{ "cudoctor_findings", "gauge", "findings of the node's report by severity", 0, "severity", "info" },
	{ "cudoctor_findings", "gauge", NULL, 0, "severity", "warn" },
	{ "cudoctor_findings", "gauge", NULL, 0, "severity", "error" },
};
static const struct field count_fields[] = {
	NODE(prom_counts),
	{ .key = "info", .kind = FK_LLONG, .off = offsetof(struct prom_counts, info), .valid = FIELD_ALWAYS,
	  .metric = &count_metrics[0] },
	{ .key = "warn", .kind = FK_LLONG, .off = offsetof(struct prom_counts, warn), .valid = FIELD_ALWAYS,
	  .metric = &count_metrics[1] },
	{ .key = "error", .kind = FK_LLONG, .off = offsetof(struct prom_counts, error), .valid = FIELD_ALWAYS,
	  .metric = &count_metrics[2] },
};
static const struct field_table count_table = TABLE("fleet.prometheus.counts", count_fields);

static const struct field_metric healthy_metric = {
	"cudoctor_gpu_healthy", "gauge", "1 when no finding about the GPU is an error (the node's check)", 0, NULL, NULL
};
static const struct field health_fields[] = {
	NODE(prom_health),
	GPU(prom_health),
	LABEL(prom_health, uuid, "uuid"),
	LABEL(prom_health, bus, "pci_bus_id"),
	{ .key = "healthy", .kind = FK_BOOL, .off = offsetof(struct prom_health, healthy), .valid = FIELD_ALWAYS,
	  .metric = &healthy_metric },
};
static const struct field_table health_table = TABLE("fleet.prometheus.health", health_fields);

static const struct field_metric seen_metrics[] = {
	{ "cudoctor_gpus_seen", "gauge", "GPUs the node's check counted, by where: the PCI bus, NVML, CUDA", 0, "source",
	  "pci" },
	{ "cudoctor_gpus_seen", "gauge", NULL, 0, "source", "nvml" },
	{ "cudoctor_gpus_seen", "gauge", NULL, 0, "source", "cuda" },
	{ "cudoctor_gpus_expected", "gauge", "GPUs the node should have (check --expect-gpus, else its PCI bus)", 0, NULL,
	  NULL },
};
#define SEEN(k, name) { .key = name, .kind = FK_LLONG, .off = offsetof(struct prom_seen, count) + (k) * sizeof(long long), \
			.valid = FIELD_ALWAYS, .flags = FIELD_NEG_UNKNOWN, .metric = &seen_metrics[k] }
static const struct field seen_fields[] = {
	NODE(prom_seen),
	SEEN(FLEET_COUNT_PCI, "pci"),
	SEEN(FLEET_COUNT_NVML, "nvml"),
	SEEN(FLEET_COUNT_CUDA, "cuda"),
	SEEN(FLEET_COUNT_EXPECTED, "expected"),
};
static const struct field_table seen_table = TABLE("fleet.prometheus.gpu_count", seen_fields);

static const struct field_metric sample_metric = { "cudoctor_lab_measurement", "gauge",
						   "a lab's measurement on one GPU of the node", 0, NULL, NULL };
static const struct field sample_fields[] = {
	NODE(prom_sample),
	GPU(prom_sample),
	LABEL(prom_sample, metric, "measurement"),
	LABEL(prom_sample, unit, "unit"),
	{ .key = "value", .kind = FK_DOUBLE, .off = offsetof(struct prom_sample, value), .valid = FIELD_ALWAYS,
	  .metric = &sample_metric },
};
static const struct field_table sample_table = TABLE("fleet.prometheus.samples", sample_fields);

/* One record of table t for obj under list (its facts are what the renderer reads). */
static void put(struct report_rec *list, const struct field_table *t, const void *obj)
{
	struct report_rec it;

	report_rec_item(list, &it);
	report_fields(&it, t, obj, FIELD_ALL);
	if (report_rec_end(&it) != CD_OK)
		return; /* the failure is list's now */
}

static void gpu_label(char *buf, size_t len, int gpu)
{
	if (gpu >= 0)
		snprintf(buf, len, "%d", gpu);
	else
		buf[0] = '\0';
}

/* The node's records into r; n NULL: a node expected that sent nothing. */
static int node_records(struct report *r, const char *name, const struct fleet_node *n)
{
	struct prom_status st = { name, n != NULL, n && n->failure };
	struct report_rec top, list;

	report_rec_top(&top, r);
	report_rec_text(&top, REPORT_TEXT_NONE);
	report_rec_array(&top, "node", &list);
	put(&list, &status_table, &st);
	if (n) {
		struct prom_info info = { n->name, { 0 } };
		struct prom_counts counts = { n->name, 0, 0, 0 };

		for (int k = 0; k < FF_COUNT; k++)
			info.facts[k] = n->facts[k] ? n->facts[k] : "";
		put(&list, &info_table, &info);
		for (size_t i = 0; i < n->n_findings; i++) {
			struct prom_finding f = { n->name, n->findings[i].id, severity_name(n->findings[i].severity) };

			counts.info += n->findings[i].severity == SEV_INFO;
			counts.warn += n->findings[i].severity == SEV_WARN;
			counts.error += n->findings[i].severity == SEV_ERROR;
			put(&list, &finding_table, &f);
		}
		put(&list, &count_table, &counts);
		for (size_t i = 0; i < n->n_health; i++) {
			struct prom_health h = { n->name, "", n->health[i].uuid, n->health[i].bus, n->health[i].healthy };

			gpu_label(h.gpu, sizeof h.gpu, n->health[i].gpu);
			put(&list, &health_table, &h);
		}
		if (n->have_count) {
			struct prom_seen seen = { n->name, { 0 } };

			memcpy(seen.count, n->gpu_count, sizeof seen.count);
			put(&list, &seen_table, &seen);
		}
		for (size_t i = 0; i < n->n_samples; i++) {
			struct prom_sample x = { n->name, "", n->samples[i].metric, n->samples[i].unit, n->samples[i].value };

			gpu_label(x.gpu, sizeof x.gpu, n->samples[i].gpu);
			put(&list, &sample_table, &x);
		}
	}
	if (report_rec_end(&list) != CD_OK)
		return top.rc;
	return report_rec_end(&top);
}

static int write_one(const char *dir, const char *name, const struct fleet_node *n, char *err)
{
	char path[4096];
	struct outfile o;
	struct report r;
	FILE *out;
	int rc;

	if (!*name || *name == '.' || strchr(name, '/'))
		return cd_fail(err, CD_EUSAGE, "--prometheus: node name '%.64s' is no file name", name);
	if (snprintf(path, sizeof path, "%s/%s.prom", dir, name) >= (int)sizeof path)
		return cd_fail(err, CD_EUSAGE, "--prometheus: path too long for %s", name);
	if ((rc = outfile_open(&o, path, "--prometheus", err)) != CD_OK)
		return rc;
	if (!(out = outfile_stream(&o))) {
		outfile_abort(&o);
		return cd_fail(err, CD_ENOMEM, "out of memory");
	}
	if ((rc = report_init(&r, "fleet")) != CD_OK || (rc = node_records(&r, name, n)) != CD_OK) {
		report_free(&r);
		outfile_abort(&o);
		return cd_fail(err, rc, rc == CD_ENOMEM ? "out of memory" : "internal error: %s's metrics", name);
	}
	rc = render_prometheus_facts(&r, out);
	report_free(&r);
	if (rc != CD_OK || ferror(out)) {
		outfile_abort(&o);
		return cd_fail(err, CD_EIO, "--prometheus: %s: write failed", path);
	}
	return outfile_commit(&o, err);
}

int fleet_write_prometheus(const struct fleet *f, const char *dir, FILE *listing, char *err)
{
	int rc = CD_OK, e;

	if ((e = os_mkdir(dir)) != 0 && e != -EEXIST)
		return cd_fail(err, CD_EIO, "--prometheus %s: %s", dir, strerror(-e));
	for (size_t i = 0; i < f->n_nodes + f->n_missing && rc == CD_OK; i++) {
		bool missing = i >= f->n_nodes;
		const char *name = missing ? f->missing[i - f->n_nodes] : f->nodes[i].name;
		rc = write_one(dir, name, missing ? NULL : &f->nodes[i], err);
		if (rc == CD_OK && listing)
			fprintf(listing, "cudoctor fleet: wrote %s/%s.prom\n", dir, name);
	}
	return rc;
}
