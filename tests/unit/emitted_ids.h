/* Every finding id cudoctor can emit, as the tests that hold each id to a promise find them:
 * the ids written as literals after a severity in src/ (report_add_finding(r, SEV_X, "id", ...),
 * finding_make(r, SEV_X, "id", ...)) and every id of the catalogue kb/findings.tsv (a case row
 * "id/case" given as its id). Header-only, like testlib.h. */
#ifndef CUDOCTOR_TEST_EMITTED_IDS_H
#define CUDOCTOR_TEST_EMITTED_IDS_H

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/file.h"

/* fn(id, its length, where it was found, arg) for each occurrence; an id may come more than once */
typedef void (*emitted_id_fn)(const char *id, size_t n, const char *where, void *arg);

static inline void emitted_ids_in_source(const char *path, emitted_id_fn fn, void *arg)
{
	char err[CD_ERRMSG], *text = NULL;

	if (file_read_text(path, 1 << 20, &text, NULL, err) != CD_OK) {
		fprintf(stderr, "emitted_ids: %s\n", err);
		abort();
	}
	for (const char *p = text; (p = strstr(p, "SEV_")) != NULL; p++) {
		const char *q = p + 4;
		while (isupper((unsigned char)*q))
			q++;
		while (*q == ',' || *q == ' ' || *q == '\t' || *q == '\n')
			q++;
		if (*q != '"')
			continue;
		const char *id = q + 1, *e = id;
		while (islower((unsigned char)*e) || isdigit((unsigned char)*e) || *e == '-')
			e++;
		if (*e == '"')
			fn(id, (size_t)(e - id), path, arg);
	}
	free(text);
}

static inline void emitted_ids_in_dir(const char *dir, emitted_id_fn fn, void *arg)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[4096];

	if (!d) {
		fprintf(stderr, "emitted_ids: cannot open %s\n", dir);
		abort();
	}
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (path_is_dir(path))
			emitted_ids_in_dir(path, fn, arg);
		else if (len > 2 && strcmp(de->d_name + len - 2, ".c") == 0)
			emitted_ids_in_source(path, fn, arg);
	}
	closedir(d);
}

/* The catalogue's ids: each row's first column up to a tab or '/'. */
static inline void emitted_ids_in_catalogue(const char *tsv_path, emitted_id_fn fn, void *arg)
{
	char err[CD_ERRMSG], *tsv = NULL;

	if (file_read_text(tsv_path, 4 << 20, &tsv, NULL, err) != CD_OK) {
		fprintf(stderr, "emitted_ids: %s\n", err);
		abort();
	}
	/* the first line is the header */
	for (char *line = strchr(tsv, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		size_t n = strcspn(line + 1, "\t\n/");
		if (line[1] != '#')
			fn(line + 1, n, tsv_path, arg);
	}
	free(tsv);
}

/* src/ then the catalogue, under the source tree root. */
static inline void emitted_ids(const char *source_dir, emitted_id_fn fn, void *arg)
{
	char p[4096];

	snprintf(p, sizeof p, "%s/src", source_dir);
	emitted_ids_in_dir(p, fn, arg);
	snprintf(p, sizeof p, "%s/kb/findings.tsv", source_dir);
	emitted_ids_in_catalogue(p, fn, arg);
}

#endif
