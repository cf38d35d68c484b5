/* A program's part of its file report in `arch`: each CUDA DLL it imports and where Windows
 * would load it from (through the run context), judged by rules_win_exe, as "dll_search". */
#include "cmd/arch/arch.h"
#include "cmd/cmd.h"
#include "facts/windows.h"
#include "rules/rules.h"
#include "show/win_exe.h"
#include "util/err.h"

int arch_exe_fields(struct report_rec *file, const struct arch_file *f)
{
	struct win_exe x;
	char err[CD_ERRMSG] = "";
	int rc;

	if (f->member)
		return CD_OK;
	if ((rc = cd_run_program_dlls(&x, f->path, f->data, f->size, err)) != CD_OK)
		return rc == CD_ENOMEM ? rc : CD_OK; /* read as the file's already: its error is said */
	if ((x.n > 0 || x.n_malformed > 0) && (rc = rules_win_exe(&x, file->r)) == CD_OK && x.n > 0)
		rc = show_win_exe(file, &x);
	cd_run_program_dlls_free(&x);
	return rc;
}
