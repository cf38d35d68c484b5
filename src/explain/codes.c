/* Errors recognised by their status names (cudaErrorNoKernelImageForDevice, CUBLAS_STATUS_*)
 * and by their numbers in a CUDA context ("CUDA error 209", "code=700("). */
#include <ctype.h>
#include <string.h>

#include "explain/scan.h"
#include "util/err.h"

/* the words a CUDA error number follows ("CUDA error 209", "code=209(", "err: 999") */
static const char *const number_keys[] = { "error", "failure", "code=", "code #", "returned", "err:", "err=",
					   "status:" };

/* the status names of the runtime, the driver and every library (their lines need not say CUDA) */
static const char *const name_prefixes[] = {
	"cudaError", "CUDA_ERROR_", "CUBLAS_STATUS_", "CUDNN_STATUS_", "CUFFT_", "CURAND_STATUS_",
	"CUSOLVER_STATUS_", "CUSPARSE_STATUS_", "NVRTC_ERROR_", "NVJITLINK_ERROR_",
};

const char *const *explain_name_prefixes(size_t *n)
{
	*n = sizeof(name_prefixes) / sizeof(name_prefixes[0]);
	return name_prefixes;
}

const char *const *explain_number_keys(size_t *n)
{
	*n = sizeof(number_keys) / sizeof(number_keys[0]);
	return number_keys;
}


/* "e == cudaSuccess || e == cudaErrorCudartUnloading": a name compared against, not raised */
static bool after_comparison(const struct line *l, size_t start)
{
	size_t i = start;

	while (i > 0 && l->s[i - 1] == ' ')
		i--;
	return i >= 2 && l->s[i - 1] == '=' && (l->s[i - 2] == '=' || l->s[i - 2] == '!');
}

int explain_match_names(struct explain_result *r, const struct line *l, bool *found)
{
	for (size_t i = 0; i < l->len;) {
		char tok[64];
		size_t n = 0, start = i;
		const struct kb_error *e = NULL;
		struct explain_match *m;
		bool known = false;

		if (!explain_is_ident((unsigned char)l->s[i]) || (i > 0 && explain_is_ident((unsigned char)l->s[i - 1]))) {
			i++;
			continue;
		}
		while (i < l->len && explain_is_ident((unsigned char)l->s[i])) {
			if (n + 1 < sizeof(tok))
				tok[n++] = l->s[i];
			i++;
		}
		tok[n] = '\0';
		if (i - start >= sizeof(tok) || n < 6 || after_comparison(l, start))
			continue;
		for (size_t k = 0; k < sizeof(name_prefixes) / sizeof(name_prefixes[0]) && !known; k++)
			known = strncmp(tok, name_prefixes[k], strlen(name_prefixes[k])) == 0;
		if (known) {
			e = kb_error_by_name(tok);
		} else if (strncmp(tok, "ERROR_", 6) == 0 && l->has_cuda) {
			/* Julia's CUDAdrv prints "ERROR_INVALID_DEVICE" */
			char full[72] = "CUDA_";

			strcat(full, tok);
			e = kb_error_by_name(full);
		}
		/* NCCL's result codes are read by the NCCL log reader and judged by rules/nccl */
		if (!e || e->code == 0 || e->api == KB_API_NCCL)
			continue;
		m = explain_hit(r, explain_error_finding(e), VIA_NAME, l);
		if (!m)
			return CD_ENOMEM;
		if (!m->error)
			m->error = e;
		explain_note_old_number(r, l, e);
		*found = true;
	}
	return CD_OK;
}

/* ---- numbers ---- */

/* "CUDA error 222", "error = 48", "error #35", "code=802(", "returned 35", "(35 vs. 0)",
 * "CUDA failure 35", "Error 804:", "error (10)", "err: 999". Returns the number or -1. */
static int number_after(const struct line *l, size_t i)
{
	int v = 0, digits = 0;

	while (i < l->len && (l->s[i] == ' ' || l->s[i] == '=' || l->s[i] == '#' || l->s[i] == '(' ||
			      l->s[i] == ':'))
		i++;
	while (i < l->len && isdigit((unsigned char)l->s[i]) && digits < 6) {
		v = v * 10 + (l->s[i++] - '0');
		digits++;
	}
	/* "ERROR 06-26 23:10" is a date, "error 1.5" a version: not codes */
	if (!digits || (i < l->len && (isdigit((unsigned char)l->s[i]) || l->s[i] == '.' ||
				       l->s[i] == '-' || l->s[i] == '/' ||
				       isalpha((unsigned char)l->s[i]))))
		return -1;
	return v;
}

/* only_codes: just "error code N" / "status: N" (a line under a CUDA error header) */
static int numbers_on_line(const struct line *l, int *out, int max, bool only_codes)
{
	const char *const *keys = number_keys;
	int n = 0;

	for (size_t k = 0; k < sizeof(number_keys) / sizeof(number_keys[0]); k++) {
		const char *key = keys[k];
		size_t klen = strlen(key);

		for (size_t i = 0; i + klen <= l->len && n < max; i++) {
			int v;
			bool code_form;

			if (l->low[i] != key[0] || strncmp(l->low + i, key, klen) != 0)
				continue;
			if (i > 0 && isalpha((unsigned char)l->low[i - 1]) && (k < 2 || k >= 5) &&
			    !(i >= 4 && strncmp(l->low + i - 4, "cuda", 4) == 0))
				continue; /* "cudaError..." is a name, "xerror" is not ours */
			code_form = k == 7 || (k == 0 && strncmp(l->low + i + klen, " code", 5) == 0);
			if (only_codes && !code_form)
				continue;
			/* "error code 35", "Error code: 98" */
			if (k == 0 && strncmp(l->low + i + klen, " code", 5) == 0)
				v = number_after(l, i + klen + 5);
			else
				v = number_after(l, i + klen);
			if (v >= 0)
				out[n++] = v;
		}
	}
	/* "(35 vs. 0)" from glog's CHECK_EQ on cudaSuccess */
	for (size_t i = 0; !only_codes && i + 8 < l->len && n < max; i++) {
		if (l->s[i] == '(' && isdigit((unsigned char)l->s[i + 1])) {
			size_t j = i + 1;
			int v = 0;

			while (j < l->len && isdigit((unsigned char)l->s[j]) && v < 100000)
				v = v * 10 + (l->s[j++] - '0');
			if (l->len - j >= 7 && strncmp(l->s + j, " vs. 0)", 7) == 0)
				out[n++] = v;
		}
	}
	return n;
}

int explain_match_numbers(struct explain_result *r, const struct line *l, bool only_codes)
{
	int nums[8];
	int n = numbers_on_line(l, nums, 8, only_codes);

	for (int i = 0; i < n; i++) {
		struct era_reading rd;
		const struct kb_error *e = eras_number(nums[i], &rd);
		struct explain_match *m;

		if (!e || e->code == 0)
			continue;
		m = explain_hit(r, explain_error_finding(e), VIA_NUMBER, l);
		if (!m)
			return CD_ENOMEM;
		if (!m->error)
			m->error = e;
		if (m->error == e && m->era.how == ERA_NONE)
			m->era = rd;
	}
	return CD_OK;
}

/* A number printed beside a recognised string or name that is that error's pre-10.1 runtime
 * number (48 for 209, 7 for 701): kept as evidence (eras.c). */
void explain_note_old_number(struct explain_result *r, const struct line *l, const struct kb_error *e)
{
	int nums[8];
	int n = numbers_on_line(l, nums, 8, false);

	for (size_t i = 0; i < r->n && n > 0; i++)
		if (r->m[i].error == e || (r->m[i].last_line == l->no && strcmp(r->m[i].finding, explain_error_finding(e)) == 0))
			eras_note_named(&r->m[i], e, nums, n);
}
