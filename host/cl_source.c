/* SPDX-License-Identifier: Apache-2.0 */
/*
 * host/cl_source.c: access to the OpenCL sources of cl_kernels/.
 *
 * The build embeds every .cl and .clh file of cl_kernels/ into the library
 * (cmake/embed_cl.cmake), so an installed libclops needs no files beside
 * it.  For kernel development, a build with CLOPS_KERNELS_FROM_DISK, or the
 * environment variable CLOPS_KERNEL_DIR, reads them from disk instead, so an
 * edited .cl file takes effect without rebuilding the library (files the
 * directory lacks, such as the shared headers of ref/, stay embedded).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"

typedef struct clops_cl_file {
    const char *name;
    const char *data;
    size_t size;
} clops_cl_file;

extern const clops_cl_file clops_cl_files[];
extern const size_t clops_cl_file_count;

/* Files read from disk stay loaded until exit (a development mode). */
typedef struct disk_file {
    char name[64];
    char *text;
    struct disk_file *next;
} disk_file;

static pthread_mutex_t disk_lock = PTHREAD_MUTEX_INITIALIZER;
static disk_file *disk_files;

/* The directory to read sources from, or NULL to use the embedded ones. */
static const char *source_dir(void)
{
    const char *dir = host_env("CLOPS_KERNEL_DIR");
    if (dir)
        return dir;
#ifdef CLOPS_KERNELS_FROM_DISK
    return CLOPS_CL_SOURCE_DIR;
#else
    return NULL;
#endif
}

/* Reads a whole file; NULL on failure. */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL) {
            if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
                free(buf);
                buf = NULL;
            } else {
                buf[n] = '\0';
            }
        }
    }
    fclose(f);
    return buf;
}

/* Loads name from dir (cached per process). */
static clops_status source_from_disk(const char *dir, const char *name, const char **text)
{
    clops_status st = CLOPS_OK;
    pthread_mutex_lock(&disk_lock);
    for (disk_file *f = disk_files; f; f = f->next)
        if (strcmp(f->name, name) == 0) {
            *text = f->text;
            goto out;
        }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *buf = read_file(path);
    disk_file *f = buf ? calloc(1, sizeof *f) : NULL;
    if (!f) {
        free(buf);
        st = clops__fail(CLOPS_IO_ERROR, "cannot read OpenCL source %s", path);
        goto out;
    }
    snprintf(f->name, sizeof f->name, "%s", name);
    f->text = buf;
    f->next = disk_files;
    disk_files = f;
    *text = buf;
out:
    pthread_mutex_unlock(&disk_lock);
    return st;
}

/* The embedded source named name, or NULL. */
static const char *embedded(const char *name)
{
    for (size_t i = 0; i < clops_cl_file_count; i++)
        if (strcmp(clops_cl_files[i].name, name) == 0)
            return clops_cl_files[i].data;
    return NULL;
}

/* Whether dir holds a file named name. */
static bool on_disk(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

clops_status host_cl_source(const char *name, const char **text)
{
    const char *dir = source_dir();
    const char *e = embedded(name);
    /* An embedded file the directory lacks (the C/OpenCL headers of ref/,
     * such as ref/random_math.clh, live outside cl_kernels/) comes from
     * the library. */
    if (dir && (!e || on_disk(dir, name)))
        return source_from_disk(dir, name, text);
    if (e) {
        *text = e;
        return CLOPS_OK;
    }
    return clops__fail(CLOPS_IO_ERROR, "no embedded OpenCL source named '%s'", name);
}
