/* Bits per weight of llama.cpp's quantisation names (Q4_K_M, IQ4_XS, Q8_0...) as
 * llama-quantize writes whole files, mixes included (kb/gguf_quants.tsv, with sources). */
#ifndef CUDOCTOR_KB_GGUF_QUANTS_H
#define CUDOCTOR_KB_GGUF_QUANTS_H

struct kb_gguf_quant {
	char name[16];             /* the table's spelling ("Q4_K_M"); an alias resolves to its target */
	double bits_per_weight;
	char source[160];
};

/* Case ignored (q4_k_m); CD_ENOTFOUND when the table has no such name; CD_EFORMAT when the
 * embedded table is malformed (err says where). */
int kb_gguf_quant_find(const char *name, struct kb_gguf_quant *out, char *err);
/* Same, from a table's text (tests). */
int kb_gguf_quant_find_in(const char *text, const char *name, struct kb_gguf_quant *out, char *err);

#endif
