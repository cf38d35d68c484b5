/* The registry of the machine cudoctor runs on: read on Windows (registry_win32.c), a value
 * that cannot be read anywhere else (registry_posix.c). */
#ifndef CUDOCTOR_OS_REGISTRY_H
#define CUDOCTOR_OS_REGISTRY_H

#include <stddef.h>

/* The REG_DWORD name under HKEY_LOCAL_MACHINE\subkey ("SYSTEM\\CurrentControlSet\\Control\\
 * GraphicsDrivers") into *out. 0; -ENOENT when the value (or its key) is not set, so Windows'
 * default applies; -ENOSYS where there is no registry (not Windows); -EIO when it exists but
 * cannot be read (access, another type); -EINVAL for a name that is not UTF-8. */
int os_registry_hklm_dword(const char *subkey, const char *name, unsigned long *out);

enum os_hive { OS_HKLM, OS_HKCU };

/* The names of the keys under hive\subkey, in UTF-8, into a malloc'ed array of malloc'ed
 * strings (os_registry_names_free). 0 (none: *n 0); -ENOENT no such key; -ENOSYS no registry;
 * -ENOMEM; -EIO. At most max names. */
int os_registry_subkeys(enum os_hive hive, const char *subkey, size_t max, char ***names, size_t *n);
void os_registry_names_free(char **names, size_t n);

/* The REG_SZ (or REG_EXPAND_SZ, expanded) value name of hive\subkey (NULL or "": the key's
 * default value) in UTF-8 into out (cap bytes). 0; -ENOENT not set; -ENOSYS no registry;
 * -ERANGE longer than cap; -EIO another type or unreadable; -EINVAL a name not UTF-8. */
int os_registry_string(enum os_hive hive, const char *subkey, const char *name, char *out, size_t cap);

#endif
