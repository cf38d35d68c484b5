/* The one place cudoctor loads a library (through os/dl.h): finding an NVIDIA library and
 * binding its entry points. */
#include "driver/loader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/dl.h"
#include "os/env.h"
#include "os/fs.h"
#include "util/err.h"
#include "util/file.h"

/* Where driver libraries live when the loader's search does not find them: WSL2's driver
 * store, NVIDIA container toolkit mounts, and the distributions' paths. On Windows the
 * driver is System32's alone (the search itself is limited to it). */
const char *const dl_driver_dirs[] = {
#ifndef _WIN32
	"/usr/lib/wsl/lib",
	"/usr/local/nvidia/lib64",
	"/usr/local/nvidia/lib",
	"/run/nvidia/driver/usr/lib/x86_64-linux-gnu",
	"/run/nvidia/driver/usr/lib64",
	"/usr/lib/x86_64-linux-gnu",
	"/usr/lib/x86_64-linux-gnu/nvidia/current",
	"/usr/lib64",
	"/usr/lib64/nvidia",
	"/usr/lib/aarch64-linux-gnu",
#endif
	NULL,
};

static void append_word(char *buf, size_t cap, const char *word)
{
	size_t len = strlen(buf);

	if (len < cap)
		snprintf(buf + len, cap - len, "%s%s", len ? " " : "", word);
}

/* The file the loader actually mapped, whatever name we asked for. */
static void record_path(struct dl_lib *lib, const char *symbol, const char *fallback)
{
	void *sym = symbol ? os_dl_sym(lib->handle, symbol) : NULL;
	char mapped[DL_PATH], real[DL_PATH];

	if (os_dl_path(lib->handle, sym, mapped, sizeof mapped))
		fallback = mapped;
	if (os_realpath(fallback, real, sizeof real))
		fallback = real;
	snprintf(lib->path, sizeof(lib->path), "%s", fallback);
}

/* The loader reads the file it is given: a FIFO there (no writer) would block it forever, a
 * device would be read as a library. A path is checked first with stat, which opens
 * nothing; a bare soname is the loader's search, which takes regular files only. */
static bool openable(const char *file, char *why, size_t cap)
{
	struct os_stat st;

	if (!os_dl_is_path(file) || os_stat(file, &st) != 0 || st.kind == OS_FILE)
		return true;
	snprintf(why, cap, "%s, not a regular file", file_kind_name(st.kind));
	return false;
}

/* A driver's bare name is looked up in the system's folder only (Windows' System32); a
 * path, and any other library, as the loader searches. why gets the loader's message. */
static bool try_open(struct dl_lib *lib, const struct dl_spec *spec, const char *file, const char *how, char *why,
		     size_t cap)
{
	enum os_dl_search search = spec->driver_dirs && !os_dl_is_path(file) ? OS_DL_SYSTEM : OS_DL_PATH;

	if (!openable(file, why, cap))
		return false;
	lib->handle = os_dl_open(file, search, why, cap);
	if (!lib->handle)
		return false;
	snprintf(lib->how, sizeof(lib->how), "%s", how);
	record_path(lib, spec->path_symbol, file);
	return true;
}

static bool try_dirs(struct dl_lib *lib, const struct dl_spec *spec, const char *const *dirs, size_t *n)
{
	char path[DL_PATH], why[CD_ERRMSG];

	for (size_t i = 0; dirs && dirs[i]; i++, (*n)++) {
		if (snprintf(path, sizeof(path), "%s/%s", dirs[i], spec->soname) >= (int)sizeof(path))
			continue;
		if (try_open(lib, spec, path, "known path", why, sizeof why))
			return true;
	}
	return false;
}

int dl_open(const struct dl_spec *spec, struct dl_lib *lib, char *err)
{
	const char *override = spec->override_env ? os_getenv(spec->override_env) : NULL;
	char first_error[CD_ERRMSG] = "", why[CD_ERRMSG] = "";
	size_t searched = 0;

	memset(lib, 0, sizeof(*lib));
	if (override && *override) {
		if (!openable(override, why, sizeof why))
			return cd_fail(err, CD_ENOTFOUND, "%s=%s: %s", spec->override_env, override, why);
		if (try_open(lib, spec, override, spec->override_env, why, sizeof why))
			return CD_OK;
		return cd_fail(err, CD_ENOTFOUND, "%s=%s: %s", spec->override_env, override, why[0] ? why : "cannot load");
	}
	if (try_open(lib, spec, spec->soname, "loader search", why, sizeof why))
		return CD_OK;
	/* the loader's message names the file: "libcuda.so.1: cannot open shared object file: ..." */
	snprintf(first_error, sizeof(first_error), "%s", why[0] ? why : spec->soname);
	if (try_dirs(lib, spec, spec->dirs, &searched) ||
	    (spec->driver_dirs && try_dirs(lib, spec, dl_driver_dirs, &searched)))
		return CD_OK;
	if (!searched)
		return cd_fail(err, CD_ENOTFOUND, "%s", first_error);
	return cd_fail(err, CD_ENOTFOUND, "%s (nor in %zu other known directories)", first_error, searched);
}

void dl_bind(struct dl_lib *lib, const struct dl_symbol *syms, size_t n, void *table, int *which)
{
	for (size_t i = 0; i < n; i++) {
		void *p = NULL;
		int k;

		for (k = 0; k < DL_MAX_NAMES && syms[i].names[k]; k++)
			if ((p = os_dl_sym(lib->handle, syms[i].names[k])))
				break;
		if (!p) {
			append_word(lib->missing, sizeof(lib->missing), syms[i].names[0]);
			k = -1;
		}
		if (which)
			which[i] = k;
		/* POSIX guarantees function pointers round-trip through void *. */
		memcpy((char *)table + syms[i].offset, &p, sizeof(p));
	}
}

void *dl_sym(const struct dl_lib *lib, const char *name)
{
	return lib->handle ? os_dl_sym(lib->handle, name) : NULL;
}

void dl_close(struct dl_lib *lib)
{
	if (lib->handle)
		os_dl_close(lib->handle);
	memset(lib, 0, sizeof(*lib));
}
