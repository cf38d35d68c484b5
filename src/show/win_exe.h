/* A program's CUDA DLLs as Windows would load them (facts/windows.h's struct win_exe), written
 * once for arch and doctor: a section, "dll_search_from", "current_folder" and the
 * "dll_search" table. */
#ifndef CUDOCTOR_SHOW_WIN_EXE_H
#define CUDOCTOR_SHOW_WIN_EXE_H

#include "facts/windows.h"
#include "report/report.h"

/* Into parent (a file's or a program's record). CD_OK or CD_ENOMEM. */
int show_win_exe(struct report_rec *parent, const struct win_exe *x);

#endif
