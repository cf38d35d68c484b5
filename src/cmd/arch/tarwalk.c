/* A conda package's payload tarball (inside a .conda, or a bare .tar.zst) walked once front to
 * back: each entry that can carry device code is judged from the live stream as a zip member
 * is (walk.c's arch_judge_member); a member whose readers want a second pass rewinds the
 * tarball to it, a bounded number of times per archive. */
#include <stdlib.h>
#include <string.h>

#include "binfmt/conda.h"
#include "binfmt/devcode.h"
#include "cmd/arch/arch.h"
#include "util/err.h"

struct tar_source {
	struct conda_tar *c;
	const struct tar_entry *e;
	const unsigned char *head; /* the entry's first bytes, already read from the live stream */
	size_t head_len, head_pos;
	bool live;                 /* the stream stands behind head: the first open reads on there */
	struct archive_budget *budget; /* passes again over the tarball, for the whole archive */
};

static int tar_src_open(void *ctx, char *err)
{
	struct tar_source *t = ctx;
	if (t->live) {
		t->live = false;
		t->head_pos = 0;
		return CD_OK;
	}
	int rc = archive_budget_rewind(t->budget, err);

	if (rc)
		return rc;
	t->head_len = t->head_pos = 0;
	return conda_tar_rewind(t->c, t->e->ordinal, t->e->name, err);
}

static int tar_src_read(void *ctx, unsigned char *buf, size_t want, size_t *got, char *err)
{
	struct tar_source *t = ctx;
	size_t from_head = t->head_len - t->head_pos < want ? t->head_len - t->head_pos : want, more = 0;
	memcpy(buf, t->head + t->head_pos, from_head);
	t->head_pos += from_head;
	*got = from_head;
	int rc = conda_tar_read(t->c, buf + from_head, want - from_head, &more, err);
	*got += more;
	return rc;
}

static const unsigned char *tar_src_upto(void *ctx)
{
	return conda_tar_upto(((struct tar_source *)ctx)->c);
}

static void tar_src_close(void *ctx)
{
	(void)ctx; /* the walk reads on from where the member's stream stands */
}

void arch_walk_tar(struct arch_walk *w, const char *path, const struct zip_archive *z, const struct zip_member *m,
		   const unsigned char *data, size_t size, const struct arch_member_release *rel)
{
	struct conda_tar c;
	struct tar_entry *e = malloc(sizeof(*e));
	unsigned char head[ARCH_MEMBER_HEAD];
	char err[CD_ERRMSG] = "", *name = NULL;
	struct archive_budget own;
	struct archive_budget *budget = w->archive;
	int more = 0, rc;

	if (!e) {
		w->files->r->oom = true;
		return;
	}
	if (!budget) {
		archive_budget_init(&own, size);
		budget = &own;
	}
	if ((rc = conda_tar_open(&c, z, m, data, size, err)) != CD_OK) {
		arch_file_error(w, path, rc, err);
		free(e);
		return;
	}
	c.budget = budget;
	while ((more = conda_tar_next(&c, e, err)) > 0) {
		size_t got = 0;
		if ((e->type != '0' && e->type != 0) || !dc_name_may_carry_code(e->name, e->name_len))
			continue;
		w->searched++;
		if (!(name = arch_member_path(path, e->name, e->name_len))) {
			w->files->r->oom = true;
			break;
		}
		rc = conda_tar_read(&c, head, sizeof head, &got, err);
		if (rc) {
			/* the stream under the tarball is damaged: nothing after it can be read */
			arch_file_error(w, name, rc, err);
			free(name);
			name = NULL;
			err[0] = 0;
			more = 0;
			break;
		}
		if (dc_has_magic(head, got)) {
			struct tar_source t = {&c, e, head, got, 0, true, budget};
			const struct arch_source src = {e->size, tar_src_open, tar_src_read, tar_src_upto, tar_src_close, &t};
			arch_judge_member(w, name, strlen(path) + 1, head, got, &src, rel);
		}
		free(name);
		name = NULL;
	}
	if (more < 0)
		arch_file_error(w, path, CD_EFORMAT, err);
	conda_tar_close(&c);
	free(e);
}
