/* dist-info lookups: a directory listing, no file reads. */
#include "probe/distinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "probe/paths.h"
#include "probe/vertext.h"
#include "util/err.h"
#include "util/file.h"
#include "util/str.h"
#include "util/version.h"

static bool is_dist_info(const char *name, void *arg)
{
	(void)arg;
	return str_ends_with(name, ".dist-info");
}

/* pkg is stem, or stem + "_cu" + digits; compared without case (pip may keep it) */
static bool pkg_matches(const char *pkg, const char *stem, enum distinfo_suffix which)
{
	size_t sl = strlen(stem);

	if (strncasecmp(pkg, stem, sl) != 0)
		return false;
	if (pkg[sl] == '\0')
		return which == DI_ANY;
	if (strncasecmp(pkg + sl, "_cu", 3) != 0 || pkg[sl + 3] == '\0')
		return false;
	for (const char *p = pkg + sl + 3; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

static bool metadata_version(const char *dir, const char *name, char *v, size_t n, struct version *pv)
{
	char p[PROBE_PATH], rel[PROBE_PATH], *text = NULL;
	size_t len;
	bool ok;

	if (snprintf(rel, sizeof rel, "%s/METADATA", name) >= (int)sizeof rel || path_join(p, sizeof p, dir, rel) != CD_OK ||
	    file_read_text(p, 64 * 1024, &text, &len, NULL) != CD_OK)
		return false;
	ok = vt_metadata_version(text, len, v, n) == CD_OK && version_parse(v, pv) == CD_OK;
	free(text);
	return ok;
}

int distinfo_find(const char *dir, const char *stem, int want_major, enum distinfo_suffix which,
		  char *ver, size_t n)
{
	char **names;
	size_t cnt;
	struct version best = { 0 };
	int rc = dir_names(dir, is_dist_info, NULL, &names, &cnt);

	if (rc != CD_OK)
		return rc;
	rc = CD_ENOTFOUND;
	for (size_t i = 0; i < cnt; i++) {
		char pkg[128], v[64];
		struct version pv;
		if (vt_dist_info_name(names[i], pkg, sizeof pkg, v, sizeof v) != CD_OK || !pkg_matches(pkg, stem, which))
			continue;
		/* pip writes the version into the directory name; an odd one is checked against
		 * the METADATA header */
		if (version_parse(v, &pv) != CD_OK && !metadata_version(dir, names[i], v, sizeof v, &pv))
			continue;
		if (want_major > 0 && pv.major != want_major)
			continue;
		if (rc == CD_OK && version_cmp(&pv, &best) <= 0)
			continue;
		best = pv;
		snprintf(ver, n, "%s", v);
		rc = CD_OK;
	}
	names_free(names, cnt);
	return rc;
}
