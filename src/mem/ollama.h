/* An Ollama model named as Ollama names it (llama3:8b, library/llama3, host/ns/model:tag) found
 * where Ollama keeps it: its manifest under the models folder names the GGUF blob that mem reads. */
#ifndef CUDOCTOR_MEM_OLLAMA_H
#define CUDOCTOR_MEM_OLLAMA_H

#include <stdbool.h>
#include <stddef.h>

#define OLLAMA_PART_MAX 128
/* "sha256:" and 64 hex digits */
#define OLLAMA_DIGEST_LEN 72

struct ollama_name {
	char host[OLLAMA_PART_MAX], ns[OLLAMA_PART_MAX], model[OLLAMA_PART_MAX], tag[OLLAMA_PART_MAX];
};

/* spec as [host/][namespace/]model[:tag], Ollama's defaults filled in (registry.ollama.ai,
 * library, latest); false when it is no such name (a part empty, "." or "..", or holding a
 * character other than letters, digits, '.', '-' and '_'), so a path never reads as one. */
bool ollama_name_parse(const char *spec, struct ollama_name *n);

/* The digest of the model layer (mediaType application/vnd.ollama.image.model) of a manifest,
 * "sha256:<64 hex>", into digest. CD_OK; CD_EFORMAT with err when the text is no manifest or
 * names no model layer, or the digest is malformed; CD_ENOTFOUND when the model is stored
 * as tensor layers rather than one GGUF blob. */
int ollama_manifest_model(const unsigned char *data, size_t size, char digest[OLLAMA_DIGEST_LEN], char *err);

/* The folder Ollama keeps its models in: $OLLAMA_MODELS, else ~/.ollama/models (the home from
 * HOME, else USERPROFILE), else the Linux service's /usr/share/ollama/.ollama/models when that
 * one holds the model's manifest (tried with n, which may be NULL). */
int ollama_models_dir(const struct ollama_name *n, char *dir, size_t cap, char *err);

/* Whether the models folder holds n's manifest. */
bool ollama_has_manifest(const struct ollama_name *n);

/* n's GGUF blob: the manifest read, its model layer's blob found (blobs/sha256-HEX, or
 * sha256:HEX as older Ollama wrote it). CD_OK with path; CD_ENOTFOUND with err saying where
 * it looked and how to get the model (ollama pull); CD_EFORMAT for a bad manifest. */
int ollama_model_file(const struct ollama_name *n, const char *spec, char *path, size_t cap, char *err);

#endif
