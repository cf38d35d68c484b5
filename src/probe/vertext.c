/* Version text parsers. Every function reads at most len bytes and never trusts a
 * terminator to be present. */
#include "probe/vertext.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/str.h"

/* Copies a run of [0-9.] starting at p (bounded by end) into out. */
static int take_dotted(const char *p, const char *end, char *out, size_t n)
{
	size_t k = 0;

	if (p >= end || !isdigit((unsigned char)*p))
		return CD_ENOTFOUND;
	while (p < end && (isdigit((unsigned char)*p) || *p == '.') && k + 1 < n)
		out[k++] = *p++;
	while (k > 0 && out[k - 1] == '.')
		k--;
	out[k] = '\0';
	return k ? CD_OK : CD_ENOTFOUND;
}

static const char *memfind(const char *hay, size_t len, const char *needle)
{
	size_t nl = strlen(needle);

	if (nl == 0 || nl > len)
		return NULL;
	for (size_t i = 0; i + nl <= len; i++)
		if (memcmp(hay + i, needle, nl) == 0)
			return hay + i;
	return NULL;
}

int vt_version_json(const char *text, size_t len, const char *component, char *out, size_t n)
{
	json_error_t je;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je), *c, *v;
	int rc = CD_ENOTFOUND;

	if (!root)
		return CD_EFORMAT;
	c = json_is_object(root) ? json_object_get(root, component) : NULL;
	v = json_is_object(c) ? json_object_get(c, "version") : NULL;
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		rc = take_dotted(s, s + strlen(s), out, n);
	}
	json_decref(root);
	return rc;
}

int vt_version_txt(const char *text, size_t len, char *out, size_t n)
{
	const char *p = memfind(text, len, "CUDA Version ");

	if (!p)
		return CD_ENOTFOUND;
	p += strlen("CUDA Version ");
	return take_dotted(p, text + len, out, n);
}

int vt_nvcc_version(const char *text, size_t len, char *out, size_t n)
{
	const char *end = text + len, *p = memfind(text, len, ", V");

	if (p && take_dotted(p + 3, end, out, n) == CD_OK)
		return CD_OK;
	p = memfind(text, len, "release ");
	if (!p)
		return CD_ENOTFOUND;
	return take_dotted(p + 8, end, out, n);
}

int vt_proc_driver_version(const char *text, size_t len, char *out, size_t n, bool *open_module)
{
	const char *end = text + len, *p = memfind(text, len, "NVRM version:"), *eol;

	*open_module = false;
	if (!p)
		return CD_ENOTFOUND;
	eol = memchr(p, '\n', (size_t)(end - p));
	if (!eol)
		eol = end;
	*open_module = memfind(p, (size_t)(eol - p), "Open Kernel Module") != NULL;
	/* the version is the first token of digits-and-dots with at least one dot after
	 * "Kernel Module" (or anywhere on the line for unusual builds) */
	const char *km = memfind(p, (size_t)(eol - p), "Kernel Module");
	const char *q = km ? km + strlen("Kernel Module") : p + strlen("NVRM version:");
	for (; q < eol; q++) {
		if (isdigit((unsigned char)*q) && (q == p || q[-1] == ' ' || q[-1] == '\t')) {
			char tmp[64];
			if (take_dotted(q, eol, tmp, sizeof tmp) == CD_OK && strchr(tmp, '.')) {
				snprintf(out, n, "%s", tmp);
				return CD_OK;
			}
		}
	}
	return CD_ENOTFOUND;
}

/* Reads a Python string literal ('x' or "x") or None at p. */
static int py_value(const char *p, const char *eol, char *out, size_t n, bool *is_none)
{
	char q;
	size_t k = 0;

	*is_none = false;
	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	if (eol - p >= 4 && memcmp(p, "None", 4) == 0) {
		*is_none = true;
		out[0] = '\0';
		return CD_OK;
	}
	if (p >= eol || (*p != '\'' && *p != '"'))
		return CD_EFORMAT;
	q = *p++;
	while (p < eol && *p != q) {
		if (k + 1 < n)
			out[k++] = *p;
		p++;
	}
	if (p >= eol)
		return CD_EFORMAT;
	out[k] = '\0';
	return CD_OK;
}

int vt_torch_version_py(const char *text, size_t len, struct torch_version_py *out)
{
	const char *p = text, *end = text + len;
	bool got_version = false;

	memset(out, 0, sizeof *out);
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *q;
		char name[32];
		size_t k = 0;
		bool none;

		if (!eol)
			eol = end;
		q = p;
		while (q < eol && (isalnum((unsigned char)*q) || *q == '_') && k + 1 < sizeof name)
			name[k++] = *q++;
		name[k] = '\0';
		/* skip an annotation ": Optional[str]" up to '=' */
		while (q < eol && *q != '=' && *q != '\n')
			q++;
		if (k > 0 && q < eol && *q == '=') {
			char val[64];
			q++;
			if (py_value(q, eol, val, sizeof val, &none) == CD_OK) {
				if (strcmp(name, "__version__") == 0 && !none) {
					snprintf(out->version, sizeof out->version, "%.*s", (int)sizeof out->version - 1, val);
					got_version = true;
				} else if (strcmp(name, "cuda") == 0) {
					snprintf(out->cuda, sizeof out->cuda, "%.*s", (int)sizeof out->cuda - 1, val);
					out->has_cuda_line = true;
				} else if (strcmp(name, "hip") == 0) {
					snprintf(out->hip, sizeof out->hip, "%.*s", (int)sizeof out->hip - 1, val);
				}
			}
		}
		p = eol + 1;
	}
	return got_version ? CD_OK : CD_EFORMAT;
}

int vt_dist_info_name(const char *name, char *pkg, size_t pkg_n, char *ver, size_t ver_n)
{
	size_t total = strlen(name), stem = strlen(".dist-info"), pl, vl;
	const char *dash;

	if (total <= stem || !str_ends_with(name, ".dist-info"))
		return CD_EFORMAT;
	dash = memchr(name, '-', total - stem);
	if (!dash)
		return CD_EFORMAT;
	pl = (size_t)(dash - name);
	vl = total - stem - pl - 1;
	if (pl == 0 || vl == 0 || pl >= pkg_n || vl >= ver_n)
		return CD_EFORMAT;
	memcpy(pkg, name, pl);
	pkg[pl] = '\0';
	memcpy(ver, dash + 1, vl);
	ver[vl] = '\0';
	return CD_OK;
}

int vt_metadata_version(const char *text, size_t len, char *out, size_t n)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		if (eol == p || (eol - p == 1 && *p == '\r'))
			break; /* headers end at the first empty line */
		if (eol - p > 9 && memcmp(p, "Version: ", 9) == 0) {
			size_t k = (size_t)(eol - p - 9);
			while (k > 0 && (p[9 + k - 1] == '\r' || p[9 + k - 1] == ' '))
				k--;
			if (k == 0 || k >= n)
				return CD_EFORMAT;
			memcpy(out, p + 9, k);
			out[k] = '\0';
			return CD_OK;
		}
		p = eol + 1;
	}
	return CD_ENOTFOUND;
}

int vt_soname_suffix(const char *file, const char *stem, char *out, size_t n)
{
	const char *s = strstr(file, stem), *p;

	if (!s)
		return CD_ENOTFOUND;
	p = s + strlen(stem);
	for (const char *q = p; *q; q++)
		if (!isdigit((unsigned char)*q) && *q != '.')
			return CD_ENOTFOUND;
	return take_dotted(p, p + strlen(p), out, n);
}

int vt_cudart_header(const char *text, size_t len, int *version)
{
	const char *p = memfind(text, len, "#define CUDART_VERSION"), *end = text + len;
	long v = 0;

	if (!p)
		return CD_ENOTFOUND;
	p += strlen("#define CUDART_VERSION");
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end || !isdigit((unsigned char)*p))
		return CD_EFORMAT;
	while (p < end && isdigit((unsigned char)*p) && v < 1000000)
		v = v * 10 + (*p++ - '0');
	*version = (int)v;
	return CD_OK;
}
