/* --anonymize: a report with the host name, GPU UUIDs, serial numbers and user names taken
 * out, so it can be pasted into a public issue. The replacements are stable hashes, so two
 * anonymized reports of one machine still line up (cudoctor diff, fleets). */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report/report.h"
#include "util/err.h"
#include "util/str.h"

/* FNV-1a: not a secret, only a stable stand-in that no reader can turn back into the name. */
static uint32_t fnv1a(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static void stand_in(const char *s, size_t n, char out[16])
{
	snprintf(out, 16, "anon-%08x", fnv1a(s, n));
}

static bool is_hex_run(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* 8-4-4-4-12 hex digits at s */
static bool is_uuid_at(const char *s)
{
	static const size_t part[] = { 8, 4, 4, 4, 12 };

	for (size_t k = 0; k < 5; k++) {
		if (strnlen(s, part[k]) < part[k] || !is_hex_run(s, part[k]))
			return false;
		s += part[k];
		if (k < 4 && *s++ != '-')
			return false;
	}
	return !isxdigit((unsigned char)*s);
}

static bool word_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.';
}

static bool word_at(const char *start, const char *s, const char *word, size_t n)
{
	return n && strncmp(s, word, n) == 0 && (s == start || !word_char(s[-1])) && !word_char(s[n]);
}

/* The scrubbed copy of s, or NULL out of memory. */
static char *scrub(const char *s, const struct report_anon *a)
{
	size_t host_len = a->hostname && strlen(a->hostname) >= 2 ? strlen(a->hostname) : 0;
	size_t home_len = a->home && strcmp(a->home, "/") && strlen(a->home) > 1 ? strlen(a->home) : 0;
	struct strbuf sb;
	char tag[16];

	sb_init(&sb);
	for (const char *p = s; *p;) {
		if (is_uuid_at(p) && (p == s || !isxdigit((unsigned char)p[-1]))) {
			stand_in(p, 36, tag);
			sb_append(&sb, tag);
			p += 36;
		} else if (strncmp(p, "/home/", 6) == 0 && p[6] && p[6] != '/') {
			sb_append(&sb, "/home/USER");
			for (p += 6; *p && *p != '/' && !isspace((unsigned char)*p) && *p != '"' && *p != '\'' &&
				     *p != ':' && *p != ')';)
				p++;
		} else if ((strncasecmp(p, "/Users/", 7) == 0 || strncasecmp(p, "\\Users\\", 7) == 0) && p[7] &&
			   p[7] != p[0]) {
			/* a Windows user's folder (C:\Users\NAME, WSL2's /mnt/c/Users/NAME): names may hold
			 * blanks, so it ends at the next separator, a quote, a line's end or " (" */
			char sep = p[0];

			sb_append(&sb, sep == '/' ? "/Users/USER" : "\\Users\\USER");
			for (p += 7; *p && *p != sep && *p != '"' && *p != '\'' && *p != '\n' && *p != '\t' && *p != ')' &&
				     !(p[0] == ' ' && p[1] == '(');)
				p++;
		} else if (home_len && strncmp(p, a->home, home_len) == 0 &&
			   (p[home_len] == '/' || !word_char(p[home_len]))) {
			sb_append(&sb, "/home/USER");
			p += home_len;
		} else if (word_at(s, p, a->hostname, host_len)) {
			stand_in(a->hostname, host_len, tag);
			sb_append(&sb, tag);
			p += host_len;
		} else {
			sb_append_n(&sb, p, 1);
			p++;
		}
	}
	return sb_detach(&sb);
}

static int scrub_in_place(char **s, const struct report_anon *a)
{
	char *t;

	if (!*s)
		return CD_OK;
	if (!(t = scrub(*s, a)))
		return CD_ENOMEM;
	free(*s);
	*s = t;
	return CD_OK;
}

static int scrub_strv(char **v, size_t n, const struct report_anon *a)
{
	for (size_t i = 0; i < n; i++)
		if (scrub_in_place(&v[i], a) != CD_OK)
			return CD_ENOMEM;
	return CD_OK;
}

static bool serial_key(const char *key)
{
	return strcmp(key, "serial") == 0 || str_ends_with(key, "_serial") || strcmp(key, "serial_number") == 0;
}

static int scrub_json(json_t *j, const struct report_anon *a)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_string(j)) {
		char *t = scrub(json_string_value(j), a);
		int rc = t && json_string_set(j, t) == 0 ? CD_OK : CD_ENOMEM;

		free(t);
		return rc;
	}
	if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			if (scrub_json(v, a) != CD_OK)
				return CD_ENOMEM;
		return CD_OK;
	}
	json_object_foreach(j, key, v) {
		if (serial_key(key) && json_is_string(v)) {
			if (json_string_set(v, "anon") != 0)
				return CD_ENOMEM;
		} else if (scrub_json(v, a) != CD_OK) {
			return CD_ENOMEM;
		}
	}
	return CD_OK;
}

/* header.hostname and header.node: a stand-in each, whatever they hold */
static int scrub_header(json_t *h)
{
	static const char *const keys[] = { "hostname", "node" };
	char tag[16];

	for (size_t k = 0; k < 2; k++) {
		const char *v = json_string_value(json_object_get(h, keys[k]));

		if (!v)
			continue;
		stand_in(v, strlen(v), tag);
		if (json_object_set_new(h, keys[k], json_string(tag)) != 0)
			return CD_ENOMEM;
	}
	return json_object_set_new(h, "anonymized", json_true()) == 0 ? CD_OK : CD_ENOMEM;
}

int report_anonymize(struct report *r, const struct report_anon *a)
{
	int rc = CD_OK;

	for (size_t i = 0; rc == CD_OK && i < r->n_findings; i++) {
		struct finding *f = &r->findings[i];

		if (scrub_in_place(&f->subject, a) || scrub_in_place(&f->title, a) || scrub_in_place(&f->why, a) ||
		    scrub_strv(f->evidence, f->n_evidence, a) || scrub_strv(f->fix, f->n_fix, a))
			rc = CD_ENOMEM;
	}
	for (size_t i = 0; rc == CD_OK && i < r->n_items; i++) {
		struct report_item *it = &r->items[i];

		if (it->kind == ITEM_FIGURE)
			continue;
		if (it->kind == ITEM_KV && it->a && strstr(it->a, "serial") && it->b) {
			free(it->b);
			it->b = cd_strdup("anon");
		}
		if ((it->kind == ITEM_KV && !it->b) || scrub_in_place(&it->a, a) || scrub_in_place(&it->b, a) ||
		    scrub_strv(it->cells, it->ncols * it->nrows, a))
			rc = CD_ENOMEM;
	}
	for (size_t i = 0; rc == CD_OK && i < r->n_facts; i++)
		rc = scrub_strv(r->facts[i].label, r->facts[i].table->n, a);
	if (rc == CD_OK)
		rc = scrub_strv(r->answer, r->n_answer, a);
	if (rc == CD_OK)
		rc = scrub_json(r->data, a);
	if (rc == CD_OK && r->header && (rc = scrub_header(r->header)) == CD_OK)
		rc = scrub_json(r->header, a);
	if (rc != CD_OK)
		r->oom = true;
	return rc;
}
