/* --prometheus DIR: one NODE.prom per node in node_exporter's textfile format, written to
 * a temporary name and renamed, so the collector never reads half a file. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd/fleet/fleet.h"
#include "fleet/fleet.h"
#include "os/fs.h"
#include "util/err.h"
#include "util/outfile.h"

/* A label value: backslash, double quote and newline escaped, as the format wants. */
static void label(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

static void node_metrics(FILE *out, const char *name, const struct fleet_node *n)
{
	size_t counts[SEV_ERROR + 1] = { 0 };

	fputs("# HELP cudoctor_node_reported 1 when the node's report reached the fleet\n"
	      "# TYPE cudoctor_node_reported gauge\ncudoctor_node_reported{node=", out);
	label(out, name);
	fprintf(out, "} %d\n", n != NULL);
	if (!n)
		return;
	fputs("# HELP cudoctor_node_collect_failed 1 when the node could not collect its report\n"
	      "# TYPE cudoctor_node_collect_failed gauge\ncudoctor_node_collect_failed{node=", out);
	label(out, n->name);
	fprintf(out, "} %d\n", n->failure != NULL);
	fputs("# HELP cudoctor_node_info the node's stack, as labels\n# TYPE cudoctor_node_info gauge\n"
	      "cudoctor_node_info{node=", out);
	label(out, n->name);
	for (int k = 0; k < FF_COUNT; k++) {
		fprintf(out, ",%s=", fleet_fact_key((enum fleet_fact)k));
		label(out, n->facts[k] ? n->facts[k] : "");
	}
	fputs("} 1\n# HELP cudoctor_finding one finding of the node's report\n# TYPE cudoctor_finding gauge\n", out);
	for (size_t i = 0; i < n->n_findings; i++) {
		counts[n->findings[i].severity]++;
		fputs("cudoctor_finding{node=", out);
		label(out, n->name);
		fputs(",id=", out);
		label(out, n->findings[i].id);
		fputs(",severity=", out);
		label(out, severity_name(n->findings[i].severity));
		fputs("} 1\n", out);
	}
	fputs("# HELP cudoctor_findings findings of the node's report by severity\n# TYPE cudoctor_findings gauge\n", out);
	for (int s = SEV_INFO; s <= SEV_ERROR; s++) {
		fputs("cudoctor_findings{node=", out);
		label(out, n->name);
		fputs(",severity=", out);
		label(out, severity_name((enum severity)s));
		fprintf(out, "} %zu\n", counts[s]);
	}
	if (n->n_health)
		fputs("# HELP cudoctor_gpu_healthy 1 when no finding about the GPU is an error (the node's check)\n"
		      "# TYPE cudoctor_gpu_healthy gauge\n", out);
	for (size_t i = 0; i < n->n_health; i++) {
		char gpu[16];

		snprintf(gpu, sizeof gpu, "%d", n->health[i].gpu);
		fputs("cudoctor_gpu_healthy{node=", out);
		label(out, n->name);
		fputs(",gpu=", out);
		label(out, n->health[i].gpu >= 0 ? gpu : "");
		fputs(",uuid=", out);
		label(out, n->health[i].uuid);
		fputs(",pci_bus_id=", out);
		label(out, n->health[i].bus);
		fprintf(out, "} %d\n", n->health[i].healthy);
	}
	if (n->have_count) {
		static const char *const sources[] = { "pci", "nvml", "cuda" };

		fputs("# HELP cudoctor_gpus_seen GPUs the node's check counted, by where: the PCI bus, NVML, CUDA\n"
		      "# TYPE cudoctor_gpus_seen gauge\n", out);
		for (int k = FLEET_COUNT_PCI; k <= FLEET_COUNT_CUDA; k++)
			if (n->gpu_count[k] >= 0) {
				fputs("cudoctor_gpus_seen{node=", out);
				label(out, n->name);
				fprintf(out, ",source=\"%s\"} %lld\n", sources[k], n->gpu_count[k]);
			}
		if (n->gpu_count[FLEET_COUNT_EXPECTED] >= 0) {
			fputs("# HELP cudoctor_gpus_expected GPUs the node should have (check --expect-gpus, else its PCI bus)\n"
			      "# TYPE cudoctor_gpus_expected gauge\ncudoctor_gpus_expected{node=", out);
			label(out, n->name);
			fprintf(out, "} %lld\n", n->gpu_count[FLEET_COUNT_EXPECTED]);
		}
	}
	if (n->n_samples)
		fputs("# HELP cudoctor_lab_measurement a lab's measurement on one GPU of the node\n"
		      "# TYPE cudoctor_lab_measurement gauge\n", out);
	for (size_t i = 0; i < n->n_samples; i++) {
		char gpu[16];
		snprintf(gpu, sizeof gpu, "%d", n->samples[i].gpu);
		fputs("cudoctor_lab_measurement{node=", out);
		label(out, n->name);
		fputs(",gpu=", out);
		label(out, n->samples[i].gpu >= 0 ? gpu : "");
		fputs(",measurement=", out);
		label(out, n->samples[i].metric);
		fputs(",unit=", out);
		label(out, n->samples[i].unit);
		fprintf(out, "} %.17g\n", n->samples[i].value);
	}
}

static int write_one(const char *dir, const char *name, const struct fleet_node *n, char *err)
{
	char path[4096];
	struct outfile o;
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
	node_metrics(out, name, n);
	if (ferror(out)) {
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
