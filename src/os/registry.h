/* The registry of the machine cudoctor runs on: read on Windows (registry_win32.c), a value
 * that cannot be read anywhere else (registry_posix.c). */
#ifndef CUDOCTOR_OS_REGISTRY_H
#define CUDOCTOR_OS_REGISTRY_H

/* The REG_DWORD name under HKEY_LOCAL_MACHINE\subkey ("SYSTEM\\CurrentControlSet\\Control\\
 * GraphicsDrivers") into *out. 0; -ENOENT when the value (or its key) is not set, so Windows'
 * default applies; -ENOSYS where there is no registry (not Windows); -EIO when it exists but
 * cannot be read (access, another type); -EINVAL for a name that is not UTF-8. */
int os_registry_hklm_dword(const char *subkey, const char *name, unsigned long *out);

#endif
