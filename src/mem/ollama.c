/* Ollama's names, manifests and blobs (mem/ollama.h): the name's parts checked before any of
 * them becomes part of a path, the manifest read as untrusted JSON, the blob named only by a
 * digest of 64 hex digits. */
#include "mem/ollama.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/env.h"
#include "util/err.h"
#include "util/file.h"
#include "util/host_path.h"

#define MANIFEST_MAX (1u << 20) /* a manifest lists a handful of layers: a few KiB */
#define MODEL_LAYER "application/vnd.ollama.image.model"
#define TENSOR_LAYER "application/vnd.ollama.image.tensor"

/* One part of a name: letters, digits, '.', '-', '_', not "." or "..", fits. */
static bool part_ok(const char *s, size_t n)
{
	if (n == 0 || n >= OLLAMA_PART_MAX || (n <= 2 && strspn(s, ".") >= n))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
		      c == '-' || c == '_'))
			return false;
	}
	return true;
}

static void put(char *out, const char *s, size_t n)
{
	memcpy(out, s, n);
	out[n] = '\0';
}

bool ollama_name_parse(const char *spec, struct ollama_name *n)
{
	const char *parts[3], *colon;
	size_t lens[3], k = 0;

	snprintf(n->host, sizeof n->host, "registry.ollama.ai");
	snprintf(n->ns, sizeof n->ns, "library");
	snprintf(n->tag, sizeof n->tag, "latest");
	for (const char *p = spec;; k++) {
		size_t len = strcspn(p, "/");
		if (k == 3)
			return false;
		parts[k] = p;
		lens[k] = len;
		if (!p[len])
			break;
		p += len + 1;
	}
	k++;
	/* the tag follows the last part's colon */
	colon = memchr(parts[k - 1], ':', lens[k - 1]);
	if (colon) {
		size_t tl = lens[k - 1] - (size_t)(colon - parts[k - 1]) - 1;
		if (!part_ok(colon + 1, tl))
			return false;
		put(n->tag, colon + 1, tl);
		lens[k - 1] = (size_t)(colon - parts[k - 1]);
	}
	for (size_t i = 0; i < k; i++)
		if (!part_ok(parts[i], lens[i]))
			return false;
	put(n->model, parts[k - 1], lens[k - 1]);
	if (k >= 2)
		put(n->ns, parts[k - 2], lens[k - 2]);
	if (k == 3)
		put(n->host, parts[0], lens[0]);
	return true;
}

static bool digest_ok(const char *d)
{
	if (strncmp(d, "sha256:", 7) != 0 || strlen(d) != 7 + 64)
		return false;
	for (const char *p = d + 7; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return false;
	return true;
}

int ollama_manifest_model(const unsigned char *data, size_t size, char digest[OLLAMA_DIGEST_LEN], char *err)
{
	json_error_t je;
	json_t *m = json_loadb((const char *)data, size, 0, &je), *layers, *l;
	bool tensors = false;
	size_t i;
	int rc = CD_OK;

	digest[0] = '\0';
	if (!m)
		return cd_fail(err, CD_EFORMAT, "not an Ollama manifest: line %d: %s", je.line, je.text);
	if (!json_is_array(layers = json_object_get(m, "layers"))) {
		rc = cd_fail(err, CD_EFORMAT, "not an Ollama manifest: no \"layers\" array");
		goto out;
	}
	json_array_foreach(layers, i, l) {
		const char *type = json_string_value(json_object_get(l, "mediaType"));
		const char *d = json_string_value(json_object_get(l, "digest"));

		if (type && strncmp(type, TENSOR_LAYER, strlen(TENSOR_LAYER)) == 0)
			tensors = true;
		if (!type || strcmp(type, MODEL_LAYER) != 0)
			continue;
		if (!d || !digest_ok(d)) {
			rc = cd_fail(err, CD_EFORMAT, "the model layer's digest is not sha256: and 64 hex digits");
			goto out;
		}
		snprintf(digest, OLLAMA_DIGEST_LEN, "%s", d);
		goto out;
	}
	rc = tensors ? cd_fail(err, CD_ENOTFOUND, "the model is stored as tensor layers, not as one GGUF file")
		     : cd_fail(err, CD_EFORMAT, "no model layer (%s) among its layers", MODEL_LAYER);
out:
	json_decref(m);
	return rc;
}

static bool manifest_path(const char *dir, const struct ollama_name *n, char *out, size_t cap)
{
	int k = snprintf(out, cap, "%s/manifests/%s/%s/%s/%s", dir, n->host, n->ns, n->model, n->tag);
	return k > 0 && (size_t)k < cap;
}

int ollama_models_dir(const struct ollama_name *n, char *dir, size_t cap, char *err)
{
	const char *env = os_getenv("OLLAMA_MODELS"), *home = os_getenv("HOME");
	char service[4096], manifest[4096];
	int k;

	if (env && *env)
		k = snprintf(dir, cap, "%s", env);
	else {
		if (!home || !*home)
			home = os_getenv("USERPROFILE");
		if (!home || !*home)
			return cd_fail(err, CD_ENOTFOUND, "no home folder (HOME) to find Ollama's models in: set OLLAMA_MODELS");
		k = snprintf(dir, cap, "%s/.ollama/models", home);
		/* Ollama's Linux service runs as user ollama, its models in that user's home */
		if (n && k > 0 && (size_t)k < cap && manifest_path(dir, n, manifest, sizeof manifest) &&
		    !path_is_file(manifest) &&
		    host_path(service, sizeof service, NULL, "/usr/share/ollama/.ollama/models") == CD_OK &&
		    manifest_path(service, n, manifest, sizeof manifest) && path_is_file(manifest))
			k = snprintf(dir, cap, "%s", service);
	}
	if (k < 0 || (size_t)k >= cap)
		return cd_fail(err, CD_EFORMAT, "Ollama's models folder: path too long");
	return CD_OK;
}

bool ollama_has_manifest(const struct ollama_name *n)
{
	char dir[4096], manifest[4096], err[CD_ERRMSG];

	return ollama_models_dir(n, dir, sizeof dir, err) == CD_OK && manifest_path(dir, n, manifest, sizeof manifest) &&
	       path_is_file(manifest);
}

int ollama_model_file(const struct ollama_name *n, const char *spec, char *path, size_t cap, char *err)
{
	char dir[4096], manifest[4096], digest[OLLAMA_DIGEST_LEN], why[CD_ERRMSG], *text = NULL;
	size_t len;
	int rc;

	if ((rc = ollama_models_dir(n, dir, sizeof dir, err)) != CD_OK)
		return rc;
	if (!manifest_path(dir, n, manifest, sizeof manifest))
		return cd_fail(err, CD_EFORMAT, "%.60s: the Ollama manifest's path is too long", spec);
	if (!path_is_file(manifest))
		return cd_fail(err, CD_ENOTFOUND,
			       "'%.60s' is no file, and Ollama has no model %s:%s in %.200s (`ollama pull %.60s` "
			       "downloads it; OLLAMA_MODELS names another models folder)",
			       spec, n->model, n->tag, dir, spec);
	if ((rc = file_read_text(manifest, MANIFEST_MAX, &text, &len, why)) != CD_OK)
		return cd_fail(err, rc, "%s", why);
	rc = ollama_manifest_model((const unsigned char *)text, len, digest, why);
	free(text);
	if (rc == CD_ENOTFOUND)
		return cd_fail(err, rc, "Ollama's %.60s: %s (%.200s); mem reads GGUF, safetensors and config.json", spec,
			       why, manifest);
	if (rc != CD_OK)
		return cd_fail(err, rc, "%.300s: %s", manifest, why);
	/* blobs/sha256-HEX; older Ollama wrote sha256:HEX outside Windows */
	for (int colon = 0; colon < 2; colon++) {
		int k = snprintf(path, cap, "%s/blobs/sha256%c%s", dir, colon ? ':' : '-', digest + 7);
		if (k > 0 && (size_t)k < cap && path_is_file(path))
			return CD_OK;
	}
	path[0] = '\0';
	return cd_fail(err, CD_ENOTFOUND,
		       "Ollama's %.60s: its manifest names blob %.20s..., which is not in %.200s/blobs (an interrupted "
		       "pull? `ollama pull %.60s` fetches it again)", spec, digest, dir, spec);
}
