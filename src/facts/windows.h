/* What was read of a Windows machine's CUDA stack from its files: where its C: drive was read
 * (C:\ itself, or /mnt/c from WSL2) and every CUDA toolkit installed there, with the
 * CUDA_PATH variables and the nvcc.exe that PATH finds first. probe/windows.c fills it; rules
 * and renderers only read it. */
#ifndef CUDOCTOR_FACTS_WINDOWS_H
#define CUDOCTOR_FACTS_WINDOWS_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/path.h"
#include "util/field.h"
#include "util/version.h"

enum win_toolkit_found_by {
	WTK_CUDA_PATH = 1 << 0,   /* %CUDA_PATH% */
	WTK_CUDA_PATH_V = 1 << 1, /* a %CUDA_PATH_Vx_y% */
	WTK_DEFAULT = 1 << 2,     /* C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v* */
	WTK_PATH = 1 << 3,        /* its bin\nvcc.exe is in a folder of PATH */
};

struct win_toolkit {
	char path[FACTS_PATH];        /* as Windows names it: C:\Program Files\...\CUDA\v12.4 */
	char local[FACTS_PATH];       /* where it was read: /mnt/c/Program Files/.../v12.4 */
	char vars[256];               /* the CUDA_PATH variables that name it, "CUDA_PATH CUDA_PATH_V12_4" */
	bool exists;                  /* the folder exists (a variable may name a removed one) */
	bool has_nvcc;                /* bin\nvcc.exe exists */
	char version_text[32];        /* "12.4.131"; "12" from cudart64_12.dll alone */
	struct version version;       /* parts 0 when no file told */
	const char *version_source;   /* "version.json", "version.txt", "cudart64_*.dll" */
	unsigned found_by;            /* enum win_toolkit_found_by bits */
	int path_rank;                /* index in PATH of its bin folder, -1 when not on PATH */
	bool wins;                    /* its nvcc.exe is the first on PATH: what `nvcc` runs */
};

/* The ways in found_by, ", "-joined: "CUDA_PATH, default folder". */
const char *win_toolkit_found_by_text(unsigned found_by, char *buf, size_t n);

/* A CUDA library DLL that a module of a Windows Python environment imports, and the copy
 * Python 3.8+ would load: the module's folder, python.exe's folder, torch\lib (torch adds it
 * with os.add_dll_directory), System32, in that order; PATH is not searched. */
struct win_dll_load {
	char module[FACTS_PATH];      /* the importing .dll or .pyd, as Windows names it */
	char dll[64];                 /* as imported: "cudnn64_9.dll" */
	char loads[FACTS_PATH];       /* the copy that loads; "" none is found: WinError 126 */
	const char *from;             /* "module folder", "python.exe folder", "torch\\lib", "System32"; NULL none */
	char shadowed[FACTS_PATH];    /* a later copy in that order, which loses; "" none */
	char on_path[FACTS_PATH];     /* the first copy in a folder of PATH (not searched); "" none */
	const char *wheel;            /* the pip wheel of its family ("nvidia-cudnn"); NULL none known */
	int cuda_major;               /* the module's CUDA major, from its cudart/cublas import; 0 unknown */
	char python[FACTS_PATH];      /* the environment's python.exe */
};

/* Where Windows looks for a DLL a desktop program imports (Microsoft's "Dynamic-link library
 * search order", standard order with SafeDllSearchMode on), from KnownDLLs on: a CUDA DLL is on
 * no KnownDLLs list (it holds Windows' own), so the search starts at the program's folder. */
enum win_exe_step {
	WEXE_APP = 0,       /* the folder the program was loaded from */
	WEXE_SYSTEM32,      /* the system folder: C:\Windows\System32 */
	WEXE_SYSTEM16,      /* the 16-bit system folder: C:\Windows\System */
	WEXE_WINDOWS,       /* the Windows folder: C:\Windows */
	WEXE_CWD,           /* the current folder */
	WEXE_PATH,          /* each folder of PATH, in order */
	WEXE_STEPS
};
extern const char *const win_exe_step_names[WEXE_STEPS]; /* "application folder", "System32", ... */

/* A CUDA library DLL a program imports and the copy Windows would load for it. */
struct win_exe_dll {
	char dll[64];                 /* as imported: "cudart64_12.dll" */
	const char *wheel;            /* the family's pip wheel ("nvidia-cuda-runtime"), naming it CUDA's */
	char loads[FACTS_PATH];       /* the copy that loads (Windows name); "" none: the program cannot start */
	int step;                     /* enum win_exe_step of loads; -1 none */
	int path_rank;                /* with WEXE_PATH: the folder's index in PATH; -1 otherwise */
	char shadowed[FACTS_PATH];    /* the next copy in that order, which loses; "" none */
	int shadowed_step;            /* its step; -1 none */
	char other_major[FACTS_PATH]; /* a copy of the family under another major's name in a searched
					 folder or a toolkit's bin (cudart64_110.dll for cudart64_12.dll); "" none */
	char elsewhere[FACTS_PATH];   /* when none loads: a copy of the very name in an installed
					 toolkit's bin, which is not searched; "" none */
};

/* A program's CUDA DLLs resolved. */
#define WIN_EXE_MALFORMED_KEPT 8
struct win_exe {
	char exe[FACTS_PATH];         /* the program as Windows names it (else as given) */
	char app_dir[FACTS_PATH];     /* its folder, Windows' name when it has one */
	bool windows;                 /* a Windows side was found: System32 ... PATH searched too */
	const char *from;             /* how it was reached: "this Windows", "WSL2 (/mnt/c)"; NULL none */
	char cwd[FACTS_PATH];         /* the current folder searched; "" not known */
	bool path_known;              /* a Windows PATH was read */
	struct win_exe_dll *d;
	size_t n;
	/* imported names that are no DLL file name (binfmt/pe.h's pe_dll_name_ok): the first few,
	 * cut, as the file has them (made safe text where printed), and how many there were */
	char malformed[WIN_EXE_MALFORMED_KEPT][80];
	size_t n_malformed;
};

/* A registry DWORD as read: its state, and its value when set. */
enum win_reg_state { WREG_UNREAD = 0, WREG_UNSET, WREG_SET };
struct win_reg_dword {
	enum win_reg_state state;
	unsigned long value;
};

#define WIN_TDR_DELAY_DEFAULT 2UL     /* seconds, when TdrDelay is not set (Microsoft's default) */

struct win_side {
	bool read;                    /* a Windows drive was found and read */
	const char *from;             /* "WSL2 (/mnt/c)", "Windows"; NULL when not read */
	char root[FACTS_PATH];        /* where C:\ was read: /mnt/c */
	bool env_visible;             /* the Windows environment was read (not from WSL2) */
	char cuda_path[FACTS_PATH];   /* %CUDA_PATH% as set; "" unset or not visible */
	struct win_toolkit *t;
	size_t n;
	/* HKLM\SYSTEM\CurrentControlSet\Control\GraphicsDrivers: TdrDelay (s), TdrLevel (0 off,
	 * 3 recover: the default), HwSchMode (2 hardware-accelerated GPU scheduling on, 1 off) */
	struct win_reg_dword tdr_delay, tdr_level, hw_sch_mode;
	const char *registry_note;    /* why they were not read: "not readable from WSL2"; NULL read */
	const char *py_registry;      /* the py launcher's list (PEP 514): "read", why not; NULL no Python probe */
	size_t py_registered;         /* installs listed there */
	struct win_dll_load *dll;     /* of every Windows-side framework's device-code files */
	size_t n_dll;
	bool oom;
};

/* Their fields (windows_fields.c): doctor's "windows" object and its "toolkits[]". */
extern const struct field_table win_side_field_table, win_toolkit_field_table, win_dll_load_field_table,
	win_exe_dll_field_table;

#endif
