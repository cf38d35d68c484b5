/* One dlopen loader for every NVIDIA library (libcuda, NVML, NCCL, cuBLAS, ...): the
 * override variable, the loader's own search, then the known driver and package places;
 * each entry point bound by its newest name, missing ones listed. */
#ifndef CUDOCTOR_DRIVER_LOADER_H
#define CUDOCTOR_DRIVER_LOADER_H

#include <stdbool.h>
#include <stddef.h>

#define DL_PATH 4096

/* The driver's two libraries by the names the platform's loader knows them. */
#ifdef _WIN32
#define CUDRV_SONAME "nvcuda.dll"
#define NVML_SONAME "nvml.dll"
#else
#define CUDRV_SONAME "libcuda.so.1"
#define NVML_SONAME "libnvidia-ml.so.1"
#endif
#define DL_MAX_NAMES 3

struct dl_lib {
	void *handle;
	char path[DL_PATH];      /* the file actually mapped (resolved) */
	char how[64];            /* "CUDOCTOR_LIBCUDA", "loader search", "known path" */
	char missing[1024];      /* space-separated entry points not found (newest name of each) */
};

/* Where to look, in order: $override_env (only that file, when set), dlopen(soname) as the
 * CUDA runtime does (LD_LIBRARY_PATH, the ld cache), each of dirs (NULL-terminated), and,
 * when driver_dirs, the places drivers live outside the loader's search (WSL, container
 * toolkit mounts, distribution paths). */
struct dl_spec {
	const char *soname;          /* "libcuda.so.1" */
	const char *override_env;    /* "CUDOCTOR_LIBCUDA", NULL for none */
	const char *path_symbol;     /* an entry point whose address names the mapped file */
	const char *const *dirs;     /* extra directories, NULL or NULL-terminated */
	bool driver_dirs;
};

/* One entry point: where its pointer lives in the caller's table, names newest first
 * (later names must share the signature). */
struct dl_symbol {
	size_t offset;
	const char *names[DL_MAX_NAMES];
};

/* The driver's own places, NULL-terminated (for callers that list what was searched). */
extern const char *const dl_driver_dirs[];

/* CD_OK, or CD_ENOTFOUND with err naming what was tried. */
int dl_open(const struct dl_spec *spec, struct dl_lib *lib, char *err);
/* Binds each symbol into table at its offset (NULL when absent, noted in lib->missing).
 * Returns the index of the name that bound for each symbol in which[i] (-1: none), when
 * which is not NULL. */
void dl_bind(struct dl_lib *lib, const struct dl_symbol *syms, size_t n, void *table, int *which);
/* dlsym by one name, NULL when absent. */
void *dl_sym(const struct dl_lib *lib, const char *name);
void dl_close(struct dl_lib *lib);

#endif
