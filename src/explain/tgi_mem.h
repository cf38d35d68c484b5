/* Text Generation Inference's (TGI's) memory lines: the launcher's token budgets (its Args line,
 * the values its warmup settles on) and the warmup's failure, "Not enough memory to handle N
 * prefill tokens" or "N total tokens with M prefill tokens", into numbers and the arithmetic
 * that says which budget to lower and to what. */
#ifndef CUDOCTOR_EXPLAIN_TGI_MEM_H
#define CUDOCTOR_EXPLAIN_TGI_MEM_H

#include <stdbool.h>
#include <stddef.h>

/* The budgets the log named so far (tokens; 0 where it said nothing: a zeroed struct is a log
 * that said nothing). */
struct tgi_mem {
	long max_input;       /* max_input_tokens / max_input_length: the longest prompt */
	long max_total;       /* max_total_tokens: prompt plus generated tokens of one request */
	long max_prefill;     /* max_batch_prefill_tokens: the tokens of one prefill batch */
	long max_batch_total; /* max_batch_total_tokens: what the KV cache holds, all requests */
	double mem_fraction;  /* cuda_memory_fraction: the share of each GPU TGI may use; 0 unknown */
};

/* The warmup's failure: what it could not hold, with the budgets known then. */
struct tgi_oom {
	long prefill;         /* "N prefill tokens" */
	long total;           /* "N total tokens with M prefill tokens": the KV cache's size; else 0 */
	struct tgi_mem budget;
	long prefill_next;    /* --max-batch-prefill-tokens to try: half, not below max_input; 0 when
			       * max_input already equals the prefill (then prompts must shrink) */
	long total_next;      /* --max-batch-total-tokens to try (total runs): half, not below
			       * max_total; 0 when max_total already equals it */
};

void tgi_mem_init(struct tgi_mem *t);
/* One line that holds one of the anchors (len bytes, no newline). */
void tgi_mem_line(struct tgi_mem *t, const char *s, size_t len);
size_t tgi_mem_anchor_count(void);
const char *tgi_mem_anchor(size_t i); /* compared ignoring ASCII case */
/* The line "Not enough memory to handle 4096 prefill tokens" (or "16000 total tokens with 2
 * prefill tokens"): its numbers and the next values to try. false when the line has none. */
bool tgi_mem_oom(const struct tgi_mem *t, const char *s, size_t len, struct tgi_oom *out);
/* The arithmetic in words, one line each; at most max lines of n bytes. */
size_t tgi_mem_evidence(const struct tgi_oom *o, char *lines, size_t n, size_t max);

#endif
