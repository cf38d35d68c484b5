/* A model's shape as numbers, described once: each field's config.json keys and, where it has
 * one, its `mem estimate` option (--layers, --kv-heads, ...). config.json and the options fill
 * the same struct, and one function puts it into a mem_model. */
#ifndef CUDOCTOR_MEM_SHAPE_H
#define CUDOCTOR_MEM_SHAPE_H

#include <stdint.h>

#include "mem/model.h"

enum mem_shape_field {
	MEM_SHAPE_LAYERS, MEM_SHAPE_HEADS, MEM_SHAPE_KV_HEADS, MEM_SHAPE_HEAD_DIM, MEM_SHAPE_HIDDEN,
	MEM_SHAPE_VOCAB, MEM_SHAPE_CONTEXT_TRAIN, MEM_SHAPE_FIELDS
};

struct mem_shape_desc {
	const char *option;     /* the option's long name; NULL: config.json only */
	const char *keys[3];    /* config.json keys, the first present wins */
	uint64_t max;           /* larger is a broken or hostile input */
	const char *what;       /* what it is, for --help and errors */
};
extern const struct mem_shape_desc mem_shape_descs[MEM_SHAPE_FIELDS];

/* 0: not given */
struct mem_shape {
	uint64_t v[MEM_SHAPE_FIELDS];
};

/* The fields config object c gives (those it lacks stay 0). */
void mem_shape_from_config(json_t *c, struct mem_shape *s);
/* field's value from an option's text; CD_EUSAGE (naming the option) when it is not a count
 * in range. */
int mem_shape_parse(struct mem_shape *s, enum mem_shape_field field, const char *text, char *err);
/* Puts s into m: the layers (allocated), heads (the KV heads default to the heads, the head dim
 * to hidden / heads), hidden (and a feed-forward size of 4 x hidden when none is known), vocab
 * and trained context where given; attn_known when the KV cache
 * can be computed. CD_EFORMAT when a value is out of range, CD_ENOMEM. */
int mem_model_apply_shape(struct mem_model *m, const struct mem_shape *s, char *err);

#endif
