/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/support/ct_files.c: temporary directories for tests that touch the
 * file system (the kernel cache, dumped sources), and removing them again.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clops_test.h"

void ct_temp_dir(const char *tag, char *buf, size_t cap)
{
    const char *root = getenv("TMPDIR");
    if (!root || !*root)
        root = "/tmp";
    int n = snprintf(buf, cap, "%s/clops-test-%s-XXXXXX", root, tag);
    CT_ASSERT_MSG(n > 0 && (size_t)n < cap, "ct_temp_dir: path too long");
    CT_ASSERT_MSG(mkdtemp(buf) != NULL, "ct_temp_dir: mkdtemp(%s) failed: %s", buf,
                  strerror(errno));
}

void ct_remove_tree(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return;
    if (S_ISDIR(sb.st_mode)) {
        DIR *d = opendir(path);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                    continue;
                char child[4096];
                int n = snprintf(child, sizeof child, "%s/%s", path, e->d_name);
                if (n > 0 && (size_t)n < sizeof child)
                    ct_remove_tree(child);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

int ct_count_files(const char *path, const char *contains)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return 0;
    if (!S_ISDIR(sb.st_mode)) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        return (S_ISREG(sb.st_mode) && (!contains || strstr(base, contains))) ? 1 : 0;
    }
    int count = 0;
    DIR *d = opendir(path);
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char child[4096];
        int n = snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        if (n > 0 && (size_t)n < sizeof child)
            count += ct_count_files(child, contains);
    }
    closedir(d);
    return count;
}
