/* probe/python: venv, $VIRTUAL_ENV, pyenv shim and plain-prefix layouts built in a temp
 * dir, with real-looking torch/version.py files and wheel dist-info directories. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/python.h"
#include "probe_tree.h"
#include "util/err.h"
#include "util/str.h"

static const char torch_cu124[] =
	"from typing import Optional\n\n"
	"__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'xpu']\n"
	"__version__ = '2.5.1+cu124'\ndebug = False\ncuda: Optional[str] = '12.4'\n"
	"git_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'\nhip: Optional[str] = None\nxpu: Optional[str] = None\n";
static const char torch_cpu[] =
	"from typing import Optional\n\n__version__ = '2.5.1+cpu'\ndebug = False\ncuda: Optional[str] = None\n"
	"git_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'\nhip: Optional[str] = None\n";

static char saved_path[8192];

static int setup(void **state)
{
	(void)state;
	snprintf(saved_path, sizeof saved_path, "%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	unsetenv("VIRTUAL_ENV");
	unsetenv("CONDA_PREFIX");
	unsetenv("PYENV_VERSION");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	setenv("PATH", saved_path, 1);
	unsetenv("VIRTUAL_ENV");
	unsetenv("PYENV_VERSION");
	unsetenv("CUDOCTOR_PYTHON_PREFIX");
	return 0;
}

static const struct py_framework *fw(const struct python_info *p, const char *name)
{
	for (size_t i = 0; i < p->n_fw; i++)
		if (strcmp(p->fw[i].name, name) == 0)
			return &p->fw[i];
	return NULL;
}

static void test_venv_on_path(void **state)
{
	char root[64], bin[4096], err[CD_ERRMSG];
	struct python_info p;
	struct python_opts o = { 0 };
	const struct py_framework *f;

	(void)state;
	assert_non_null(tree_new(root, sizeof root));
	tree_file(root, "venv/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.7\n", 0);
	tree_file(root, "venv/bin/python3", "#!/bin/sh\nexit 1\n", 1);
	tree_file(root, "venv/lib/python3.11/site-packages/torch/version.py", torch_cu124, 0);
	tree_dir(root, "venv/lib/python3.11/site-packages/torch-2.5.1+cu124.dist-info");
	tree_dir(root, "venv/lib/python3.11/site-packages/nvidia_cuda_runtime_cu12-12.4.127.dist-info");
	tree_dir(root, "venv/lib/python3.11/site-packages/nvidia_cudnn_cu12-9.1.0.70.dist-info");
	tree_dir(root, "venv/lib/python3.11/site-packages/cupy_cuda12x-13.3.0.dist-info");
	tree_dir(root, "venv/lib/python3.11/site-packages/jax-0.4.30.dist-info");
	tree_dir(root, "venv/lib/python3.11/site-packages/numpy-2.1.0.dist-info");
	setenv("PATH", tree_path(root, "venv/bin", bin, sizeof bin), 1);

	assert_int_equal(python_probe(&p, &o, err), CD_OK);
	assert_int_equal(p.n_envs, 1);
	assert_string_equal(p.envs[0].kind, "venv");
	assert_true(str_ends_with(p.envs[0].prefix, "/venv"));
	assert_int_equal(p.n_site_dirs, 1);
	assert_true(str_ends_with(p.site_dirs[0], "/venv/lib/python3.11/site-packages"));
	f = fw(&p, "torch");
	assert_non_null(f);
	assert_string_equal(f->version, "2.5.1+cu124");
	assert_string_equal(f->cuda, "12.4");
	assert_false(f->cpu_only);
	assert_true(str_ends_with(f->path, "/site-packages/torch"));
	f = fw(&p, "cupy-cuda12x");
	assert_non_null(f);
	assert_string_equal(f->version, "13.3.0");
	assert_string_equal(f->cuda, "12");
	assert_non_null(fw(&p, "jax"));
	assert_null(fw(&p, "numpy"));
	assert_int_equal(p.n_wheels, 2);
	assert_string_equal(p.wheels[0].name, "nvidia-cuda-runtime-cu12");
	assert_string_equal(p.wheels[0].version, "12.4.127");
	assert_string_equal(p.wheels[1].name, "nvidia-cudnn-cu12");
	python_free(&p);
	tree_remove(root);
}

static void test_virtual_env_cpu_torch(void **state)
{
	char root[64], venv[4096], err[CD_ERRMSG];
	struct python_info p;
	struct python_opts o = { 0 };
	const struct py_framework *f;

	(void)state;
	assert_non_null(tree_new(root, sizeof root));
	tree_file(root, "env/lib/python3.12/site-packages/torch/version.py", torch_cpu, 0);
	setenv("VIRTUAL_ENV", tree_path(root, "env", venv, sizeof venv), 1);
	setenv("PATH", "/nonexistent", 1);
	assert_int_equal(python_probe(&p, &o, err), CD_OK);
	assert_int_equal(p.n_envs, 1);
	assert_string_equal(p.envs[0].kind, "venv");
	f = fw(&p, "torch");
	assert_non_null(f);
	assert_true(f->cpu_only);
	assert_string_equal(f->cuda, "");
	python_free(&p);
	tree_remove(root);
}

static void test_pyenv_shim(void **state)
{
	char root[64], path[8192], a[4096], b[4096], err[CD_ERRMSG];
	struct python_info p;
	struct python_opts o = { 0 };

	(void)state;
	assert_non_null(tree_new(root, sizeof root));
	tree_file(root, ".pyenv/shims/python3", "#!/usr/bin/env bash\nexec pyenv exec python3 \"$@\"\n", 1);
	tree_file(root, ".pyenv/version", "3.11.7\n", 0);
	tree_file(root, ".pyenv/versions/3.11.7/lib/python3.11/site-packages/torch/version.py", torch_cu124, 0);
	/* a plain interpreter later on PATH: prefix from the real binary's location */
	tree_file(root, "usr/bin/python3.12", "#!/bin/sh\n", 1);
	tree_link(root, "usr/bin/python3", "python3.12");
	tree_dir(root, "usr/lib/python3.12/site-packages/nvidia_nccl_cu12-2.21.5.dist-info");
	tree_dir(root, "usr/local/lib/python3.12/dist-packages/nvidia_cublas_cu12-12.4.5.8.dist-info");
	snprintf(path, sizeof path, "%s:%s", tree_path(root, ".pyenv/shims", a, sizeof a), tree_path(root, "usr/bin", b, sizeof b));
	setenv("PATH", path, 1);

	assert_int_equal(python_probe(&p, &o, err), CD_OK);
	assert_int_equal(p.n_envs, 1);
	assert_string_equal(p.envs[0].kind, "pyenv");
	assert_true(str_ends_with(p.envs[0].prefix, "/.pyenv/versions/3.11.7"));
	assert_non_null(fw(&p, "torch"));
	python_free(&p);

	/* `pyenv shell system` hands over to the next python3 on PATH */
	setenv("PYENV_VERSION", "system", 1);
	assert_int_equal(python_probe(&p, &o, err), CD_OK);
	assert_int_equal(p.n_envs, 1);
	assert_string_equal(p.envs[0].kind, "system");
	assert_true(str_ends_with(p.envs[0].prefix, "/usr"));
	assert_null(fw(&p, "torch"));
	assert_int_equal(p.n_wheels, 2);
	assert_int_equal(p.n_site_dirs, 2);
	python_free(&p);
	tree_remove(root);
}

static void test_user_site(void **state)
{
	char root[64], bin[4096], home[4096], err[CD_ERRMSG];
	struct python_info p;
	struct python_opts o;

	(void)state;
	assert_non_null(tree_new(root, sizeof root));
	tree_file(root, "usr/bin/python3.11", "#!/bin/sh\n", 1);
	tree_link(root, "usr/bin/python3", "python3.11");
	tree_file(root, "home/.local/lib/python3.11/site-packages/torch/version.py", torch_cu124, 0);
	setenv("PATH", tree_path(root, "usr/bin", bin, sizeof bin), 1);
	o.home = tree_path(root, "home", home, sizeof home);
	assert_int_equal(python_probe(&p, &o, err), CD_OK);
	assert_int_equal(p.n_site_dirs, 1);
	assert_true(str_ends_with(p.site_dirs[0], "/home/.local/lib/python3.11/site-packages"));
	assert_non_null(fw(&p, "torch"));
	python_free(&p);
	tree_remove(root);
}

/* Why: "in a venv holding only cudoctor, doctor says \"no python3 found\" although python3 is on
 * PATH". The venv (pip's layout: cudoctor, pip, their dist-info) is activated, so it is
 * VIRTUAL_ENV, the launcher's CUDOCTOR_PYTHON_PREFIX and the first python3 on PATH; the
 * system's python3 after it, with torch, is the user's environment. */
static void test_doctor_in_a_venv_holding_only_cudoctor_says_no_python3_found(void **state)
{
	char root[64], tool[4096], usr[4096], path[8300], err[CD_ERRMSG], real_usr[4096];
	struct python_info p;
	struct python_opts o = { 0 };
	const struct py_framework *f;

	(void)state;
	assert_non_null(tree_new(root, sizeof root));
	tree_file(root, "tool/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n", 0);
	tree_file(root, "tool/bin/python3", "#!/bin/sh\nexit 1\n", 1);
	tree_file(root, "tool/bin/cudoctor", "#!/bin/sh\nexit 1\n", 1);
	tree_file(root, "tool/lib/python3.11/site-packages/cudoctor/__init__.py", "", 0);
	tree_dir(root, "tool/lib/python3.11/site-packages/cudoctor-0.1.0.dist-info");
	tree_dir(root, "tool/lib/python3.11/site-packages/pip");
	tree_dir(root, "tool/lib/python3.11/site-packages/pip-23.0.1.dist-info");
	tree_file(root, "usr/bin/python3.11", "#!/bin/sh\nexit 1\n", 1);
	assert_int_equal(tree_link(root, "usr/bin/python3", "python3.11"), 0);
	tree_file(root, "usr/lib/python3.11/site-packages/torch/version.py", torch_cu124, 0);
	tree_dir(root, "usr/lib/python3.11/site-packages/torch-2.5.1+cu124.dist-info");
	tree_path(root, "tool", tool, sizeof tool);
	tree_path(root, "usr", usr, sizeof usr);
	assert_non_null(realpath(usr, real_usr));
	snprintf(path, sizeof path, "%s/bin:%s/bin", tool, usr);
	setenv("PATH", path, 1);
	setenv("VIRTUAL_ENV", tool, 1);
	setenv("CUDOCTOR_PYTHON_PREFIX", tool, 1);

	assert_int_equal(python_probe(&p, &o, err), CD_OK);
	assert_int_equal(p.n_envs, 1);
	assert_string_equal(p.envs[0].kind, "system");
	assert_string_equal(p.envs[0].prefix, real_usr);
	f = fw(&p, "torch");
	assert_non_null(f);
	assert_string_equal(f->version, "2.5.1+cu124");
	python_free(&p);
	unsetenv("CUDOCTOR_PYTHON_PREFIX");
	tree_remove(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_venv_on_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_virtual_env_cpu_torch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pyenv_shim, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_site, setup, teardown),
		cmocka_unit_test_setup_teardown(test_doctor_in_a_venv_holding_only_cudoctor_says_no_python3_found, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
