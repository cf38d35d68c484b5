/* The NCCL log facts' field tables: the keys and labels of explain's "nccl" object and its
 * channel table (docs/json.md). */
#include <stdio.h>
#include <string.h>

#include "facts/nccl_log.h"

#define L(m) offsetof(struct nccl_log, m)
#define C(m) offsetof(struct nccl_channel, m)

/* the distinct versions, first seen first: a list of blank-separated words (none has a blank) */
static bool versions(const void *obj, struct field_value *v)
{
	const struct nccl_log *l = obj;
	size_t len = 0;

	v->buf[0] = '\0';
	for (size_t i = 0; i < l->n_versions && len < sizeof v->buf; i++)
		len += (size_t)snprintf(v->buf + len, sizeof v->buf - len, "%s%s", i ? " " : "", l->versions[i]);
	v->kind = FV_LIST;
	v->s = v->buf;
	v->seps = " ";
	return true;
}

static const struct field nccl_log_fields[] = {
	{ .label = "NCCL lines", .kind = FK_ULLONG, .off = L(nccl_lines), .valid = FIELD_ALWAYS, .views = FIELD_ALL },
	{ .key = "versions", .label = "version", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL,
	  .flags = FIELD_QUIET, .get = versions },
	{ .key = "network", .label = "network", .kind = FK_CHARS, .off = L(network), .valid = FIELD_ALWAYS,
	  .views = FIELD_ALL },
	{ .key = "bootstrap_interface", .label = "bootstrap interface", .kind = FK_CHARS, .off = L(bootstrap_if),
	  .valid = FIELD_ALWAYS, .views = FIELD_ALL },
};

const struct field_table nccl_log_field_table = {
	"nccl", nccl_log_fields, sizeof nccl_log_fields / sizeof nccl_log_fields[0], -1, NULL, NULL,
};

static void channel_text(const void *obj, char *buf, size_t len)
{
	snprintf(buf, len, "%02d", ((const struct nccl_channel *)obj)->channel);
}

/* "0 [0]": a rank and its bracketed device, as the log writes them */
static const char *from_text(const void *obj, char *buf, size_t cap)
{
	const struct nccl_channel *c = obj;

	snprintf(buf, cap, "%d [%s]", c->src_rank, c->src_dev);
	return buf;
}

static const char *to_text(const void *obj, char *buf, size_t cap)
{
	const struct nccl_channel *c = obj;

	snprintf(buf, cap, "%d [%s]", c->dst_rank, c->dst_dev);
	return buf;
}

/* The text's columns are channel, from, to and the whole "via" (labelled transport); JSON
 * has each part. */
static const struct field nccl_channel_fields[] = {
	{ .key = "channel", .label = "channel", .kind = FK_INT, .off = C(channel), .valid = FIELD_ALWAYS,
	  .views = FIELD_ALL, .text = channel_text },
	{ .key = "src_rank", .kind = FK_INT, .off = C(src_rank), .valid = FIELD_ALWAYS },
	{ .key = "src_device", .kind = FK_CHARS, .off = C(src_dev), .valid = FIELD_ALWAYS, .flags = FIELD_EMPTY_KNOWN },
	{ .key = "dst_rank", .kind = FK_INT, .off = C(dst_rank), .valid = FIELD_ALWAYS },
	{ .key = "dst_device", .kind = FK_CHARS, .off = C(dst_dev), .valid = FIELD_ALWAYS, .flags = FIELD_EMPTY_KNOWN },
	{ .label = "from", .kind = FK_TEXT, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .string = from_text },
	{ .label = "to", .kind = FK_TEXT, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .string = to_text },
	{ .key = "transport", .kind = FK_CHARS, .off = C(transport), .valid = FIELD_ALWAYS, .flags = FIELD_EMPTY_KNOWN },
	{ .key = "via", .label = "transport", .kind = FK_CHARS, .off = C(via), .valid = FIELD_ALWAYS,
	  .views = FIELD_ALL, .flags = FIELD_EMPTY_KNOWN },
};

const struct field_table nccl_channel_field_table = {
	"nccl.channels[]", nccl_channel_fields, sizeof nccl_channel_fields / sizeof nccl_channel_fields[0], -1,
	NULL, NULL,
};
