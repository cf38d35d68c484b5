/* explain's NCCL part: the "NCCL log" section and JSON key of a log's facts, and the findings
 * rules/nccl.h makes of them. */
#include "cmd/explain/nccl.h"

#include <stdio.h>

#include "explain/nccl_log.h"
#include "rules/nccl.h"
#include "util/err.h"

/* The text shows the first channels; JSON has every one. */
#define TEXT_CHANNELS 64

static int render(const struct nccl_log *l, struct report *r)
{
	const char *hdr[8];
	size_t ncols = report_fields_headers(&nccl_channel_field_table, FIELD_ALL, hdr, 8);
	size_t shown = l->n_ch < TEXT_CHANNELS ? l->n_ch : TEXT_CHANNELS;
	struct report_rec top, o, tab, row;
	int rc;

	report_rec_top(&top, r);
	report_rec_object(&top, "nccl", &o);
	report_rec_section(&o, "NCCL log");
	report_fields(&o, &nccl_log_field_table, l, FIELD_ALL);
	if (l->n_ch)
		report_rec_table(&o, "channels", ncols, hdr, &tab);
	else /* no table without a row; JSON still has the key */
		report_rec_array(&o, "channels", &tab);
	for (size_t i = 0; i < l->n_ch; i++) {
		if (i < TEXT_CHANNELS)
			report_rec_item(&tab, &row);
		else
			report_rec_item_json(&tab, &row);
		report_fields(&row, &nccl_channel_field_table, &l->ch[i], FIELD_ALL);
		if (report_rec_end(&row) != CD_OK)
			break;
	}
	if (report_rec_end(&tab) == CD_OK && l->n_ch && shown < l->n_ch + l->n_ch_dropped)
		report_rec_line(&o, "(%zu more connections not shown)", l->n_ch + l->n_ch_dropped - shown);
	rc = report_rec_end(&o);
	return report_rec_end(&top) == CD_OK ? rc : top.rc;
}

int nccl_explain(struct report *r, const char *text, size_t len, char *err)
{
	struct nccl_log l;
	int rc = nccl_log_parse(text, len, &l, err);

	if (rc != CD_OK)
		return rc;
	rc = nccl_explain_log(r, &l, err);
	nccl_log_free(&l);
	return rc;
}

int nccl_explain_log(struct report *r, const struct nccl_log *l, char *err)
{
	int rc = CD_OK;

	if (l->nccl_lines && (rc = render(l, r)) == CD_OK)
		rc = nccl_rules(l, r, err);
	return rc;
}
