/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/check/check_proc.c: running a child process and capturing its
 * standard output, for the measurements that need a fresh process (an op's
 * first call with an empty or a warm kernel cache, `clops warmup`'s warm
 * pass).
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/check/check.h"

extern char **environ;

bool chk_self_exe(char *buf, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
    if (n <= 0 || (size_t)n >= cap - 1)
        return false;
    buf[n] = '\0';
    return true;
}

/* The environment of the child: ours, with each NAME=value of add replacing
 * a variable of that name.  Returns a malloc'd array (strings borrowed). */
static char **child_env(char *const *add)
{
    size_t n = 0, m = 0;
    while (environ && environ[n])
        n++;
    while (add && add[m])
        m++;
    char **env = calloc(n + m + 1, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        bool replaced = false;
        for (size_t j = 0; j < m && !replaced; j++) {
            size_t len = strcspn(add[j], "=");
            replaced = strncmp(environ[i], add[j], len) == 0 && environ[i][len] == '=';
        }
        if (!replaced)
            env[k++] = environ[i];
    }
    for (size_t j = 0; j < m; j++)
        env[k++] = add[j];
    env[k] = NULL;
    return env;
}

clops_status chk_spawn_capture(char *const *argv, char *const *env_add, char **out,
                               int *exit_code)
{
    *out = NULL;
    *exit_code = -1;
    int fds[2];
    if (pipe(fds) != 0)
        return clops__fail(CLOPS_IO_ERROR, "pipe: %s", strerror(errno));
    char **env = child_env(env_add);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    pid_t pid = 0;
    int rc = env ? posix_spawn(&pid, argv[0], &fa, NULL, argv, env) : ENOMEM;
    posix_spawn_file_actions_destroy(&fa);
    free(env);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        return clops__fail(CLOPS_IO_ERROR, "cannot run %s: %s", argv[0], strerror(rc));
    }
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    clops_status st = CLOPS_OK;
    for (;;) {
        if (!buf) {
            st = clops__fail(CLOPS_HOST_OUT_OF_MEMORY, "child output");
            break;
        }
        if (len + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                continue;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fds[0], buf + len, cap - len - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (st) {
        free(buf);
        return st;
    }
    buf[len] = '\0';
    *out = buf;
    return CLOPS_OK;
}
