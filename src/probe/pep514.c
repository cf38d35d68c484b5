/* PEP 514's registry layout read through os/registry.h: Software\Python\<Company>\<Tag> with
 * InstallPath's default value; the company PyLauncher holds the launcher's own settings. */
#include "probe/pep514.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "os/registry.h"
#include "util/err.h"

/* Bounds on what one registry may list: companies per root, tags per company. */
#define MAX_KEYS 64

static int add(struct pep514_install **out, size_t *n, const char *hive, const char *key, const char *path)
{
	struct pep514_install *grown = realloc(*out, (*n + 1) * sizeof **out);

	if (!grown)
		return CD_ENOMEM;
	*out = grown;
	snprintf(grown[*n].key, sizeof grown[*n].key, "%s\\%s", hive, key);
	snprintf(grown[*n].path, sizeof grown[*n].path, "%s", path);
	(*n)++;
	return CD_OK;
}

/* The tags of one company under root. */
static int company(enum os_hive hive, const char *hive_name, const char *root, const char *name,
		   struct pep514_install **out, size_t *n)
{
	char key[512], ip[600], path[FACTS_PATH];
	char **tags = NULL;
	size_t nt = 0;
	int rc = CD_OK, e;

	snprintf(key, sizeof key, "%s\\%s", root, name);
	if ((e = os_registry_subkeys(hive, key, MAX_KEYS, &tags, &nt)) != 0)
		return e == -ENOMEM ? CD_ENOMEM : CD_OK; /* gone or unreadable: nothing listed */
	for (size_t i = 0; i < nt && rc == CD_OK; i++) {
		snprintf(ip, sizeof ip, "%s\\%s\\InstallPath", key, tags[i]);
		if (os_registry_string(hive, ip, NULL, path, sizeof path) == 0 && path[0]) {
			snprintf(ip, sizeof ip, "%s\\%s", key, tags[i]);
			rc = add(out, n, hive_name, ip, path);
		}
	}
	os_registry_names_free(tags, nt);
	return rc;
}

int pep514_installs(struct pep514_install **out, size_t *n, char *err)
{
	static const struct {
		enum os_hive hive;
		const char *name, *root;
	} roots[] = {
		{ OS_HKCU, "HKCU", "Software\\Python" },
		{ OS_HKLM, "HKLM", "Software\\Python" },
		{ OS_HKLM, "HKLM", "Software\\WOW6432Node\\Python" }, /* 32-bit installs on 64-bit Windows */
	};
	int rc = CD_OK;

	*out = NULL;
	*n = 0;
	for (size_t r = 0; r < sizeof roots / sizeof roots[0] && rc == CD_OK; r++) {
		char **companies = NULL;
		size_t nc = 0;
		int e = os_registry_subkeys(roots[r].hive, roots[r].root, MAX_KEYS, &companies, &nc);

		if (e == -ENOSYS)
			return CD_EUNSUPPORTED;
		if (e == -ENOMEM)
			rc = CD_ENOMEM;
		for (size_t i = 0; i < nc && rc == CD_OK; i++)
			if (strcasecmp(companies[i], "PyLauncher") != 0)
				rc = company(roots[r].hive, roots[r].name, roots[r].root, companies[i], out, n);
		os_registry_names_free(companies, nc);
	}
	if (rc != CD_OK) {
		free(*out);
		*out = NULL;
		*n = 0;
		return cd_fail(err, rc, "python: out of memory");
	}
	return CD_OK;
}
