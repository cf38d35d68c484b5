/* Renderers: the same report as colored text, Markdown for a GitHub issue, JSON, or
 * Prometheus metrics. */
#ifndef CUDOCTOR_RENDER_H
#define CUDOCTOR_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "report/report.h"

/* FMT_PROMETHEUS: metrics for node_exporter's textfile collector (doctor and devices) */
enum output_format { FMT_TEXT, FMT_MARKDOWN, FMT_JSON, FMT_PROMETHEUS };

struct render_opts {
	enum output_format format;
	bool color;
	int verbosity; /* -1 quiet (warn/error findings only), 0 normal, 1 verbose */
	size_t width;  /* text: columns to wrap to; 0: no wrapping */
	FILE *rest;    /* -q and scripting forms: where the findings go (stderr); NULL: nowhere */
};

int render_report(const struct report *r, const struct render_opts *o, FILE *out);
/* The JSON object of the contract: tool, version, command, header, findings, then r->data's keys. */
json_t *report_to_json(const struct report *r);
/* The metrics of r's facts alone (the records written from field tables with metrics), with
 * no cudoctor_up, build info or findings: a file of metrics that is not a command's report
 * (fleet's NODE.prom). CD_OK or CD_EIO. */
int render_prometheus_facts(const struct report *r, FILE *out);

#endif
