/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/fuzz/fuzz_schema.c: fuzz target for the schema parser
 * (dispatch/schema.c).
 *
 * For every input it parses the bytes as a schema.  A success must validate,
 * print, parse again to the same structure and print to the same text (the
 * printed form is a fixed point), and the query helpers must agree with the
 * structure.  A failure must be CLOPS_SCHEMA_ERROR with a printable
 * three-line message whose column lies inside the text.  Any violation
 * aborts, so the sanitizers and the fuzzer report it with the input.
 *
 * Built two ways:
 *  - with clang -fsanitize=fuzzer,address, LLVMFuzzerTestOneInput is driven
 *    by libFuzzer (tests/fuzz/CMakeLists.txt, option CLOPS_FUZZ);
 *  - with -DCLOPS_FUZZ_STANDALONE, any C compiler gives a driver that replays
 *    files and then mutates them randomly from a fixed seed for a time or an
 *    iteration budget (tests/fuzz/run_schema_fuzz.sh uses it under gcc's
 *    sanitizers).  Adding -DCLOPS_FUZZ_WRAP_MALLOC and linking with
 *    -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc enables -m, which runs
 *    each input again with the 1st, 2nd, ... allocation failing, to prove
 *    every out-of-memory path is handled without leaks.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dispatch/schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Longest input tried; libFuzzer's default -max_len is far below. */
#define FUZZ_MAX_INPUT 65536

/* Set while allocation failures are being injected: then OOM results are
 * expected and accepted. */
static bool oom_mode;
/* Set by the allocation wrappers when they made an allocation fail. */
static bool oom_injected;

/* Reports a violated property with the input and aborts. */
static void require(bool ok, const char *what, const char *input)
{
    if (ok)
        return;
    fprintf(stderr, "fuzz_schema: %s\ninput: \"%s\"\nlast error: %s\n", what, input,
            clops_last_error());
    abort();
}

/* Checks the message of a CLOPS_SCHEMA_ERROR for the given text. */
static void check_error_message(const char *text)
{
    const char *msg = clops_last_error();
    int col = -1, lines = 0;
    require(sscanf(msg, "schema error at column %d:", &col) == 1, "message lacks a column", text);
    require(col >= 1 && (size_t)col <= strlen(text) + 1, "column outside the text", text);
    for (const char *c = msg; *c; c++) {
        require(*c == '\n' || (*c >= ' ' && *c < 0x7f), "unprintable byte in message", text);
        lines += *c == '\n';
    }
    require(lines == 2, "message is not three lines", text);
    const char *caret = strrchr(msg, '\n') + 1;
    require(caret[strlen(caret) - 1] == '^', "caret line does not end in '^'", text);
}

/* Checks everything that must hold for a schema that parsed. */
static void check_parsed(const op_schema *s, const char *text)
{
    require(schema_validate(s) == CLOPS_OK, "parsed schema does not validate", text);
    for (int i = 0; i < s->nargs; i++)
        require(schema_find_arg(s, s->args[i].name) == i, "find_arg disagrees", text);
    (void)schema_is_out_variant(s);
    (void)schema_is_inplace(s);

    char *qual = schema_qualified_name(s);
    char *first = schema_to_string(s);
    op_schema *again = NULL;
    char *second = NULL;
    if (!qual || !first) {
        require(oom_mode && oom_injected, "NULL string without an allocation failure", text);
        goto cleanup;
    }
    require(strncmp(qual, s->name, strlen(s->name)) == 0, "qualified name lacks the name", text);
    clops_status st = schema_parse(first, &again);
    if (st == CLOPS_HOST_OUT_OF_MEMORY && oom_mode && oom_injected)
        goto cleanup;
    require(st == CLOPS_OK, "printed schema does not parse again", first);
    require(schema_equal(s, again), "printed schema parses to another structure", text);
    second = schema_to_string(again);
    if (!second) {
        require(oom_mode && oom_injected, "NULL string without an allocation failure", text);
        goto cleanup;
    }
    require(strcmp(first, second) == 0, "print is not a fixed point", text);
cleanup:
    free(qual);
    free(first);
    free(second);
    schema_free(again);
}

/* Parses one NUL-terminated input and checks the outcome; true when it
 * parsed. */
static bool run_text(const char *text)
{
    op_schema *s = (op_schema *)&s;
    clops_status st = schema_parse(text, &s);
    if (st == CLOPS_OK) {
        require(s != NULL, "success without a schema", text);
        check_parsed(s, text);
        schema_free(s);
        return true;
    }
    require(s == NULL, "failure left *out set", text);
    if (st == CLOPS_HOST_OUT_OF_MEMORY) {
        require(oom_mode && oom_injected, "out of memory without an allocation failure", text);
        return false;
    }
    require(st == CLOPS_SCHEMA_ERROR, "unexpected status", text);
    check_error_message(text);
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    run_text(text);
    free(text);
    return 0;
}

#ifdef CLOPS_FUZZ_STANDALONE

#ifdef CLOPS_FUZZ_WRAP_MALLOC
/* Allocation wrappers (link with -Wl,--wrap=malloc,--wrap=calloc,
 * --wrap=realloc): while fail_countdown is positive, the allocation that
 * brings it to zero fails. */
static long fail_countdown;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);

/* True when the current allocation is the one chosen to fail. */
static bool should_fail(void)
{
    if (fail_countdown <= 0 || --fail_countdown > 0)
        return false;
    oom_injected = true;
    return true;
}

/* malloc that fails when chosen. */
void *__wrap_malloc(size_t n)
{
    return should_fail() ? NULL : __real_malloc(n);
}

/* calloc that fails when chosen. */
void *__wrap_calloc(size_t n, size_t m)
{
    return should_fail() ? NULL : __real_calloc(n, m);
}

/* realloc that fails when chosen. */
void *__wrap_realloc(void *p, size_t n)
{
    return should_fail() ? NULL : __real_realloc(p, n);
}

/* Runs text with the 1st, 2nd, ... allocation failing until one run makes
 * no allocation fail; returns the number of runs. */
static long run_with_oom(const char *text)
{
    long k = 1;
    oom_mode = true;
    for (;; k++) {
        oom_injected = false;
        fail_countdown = k;
        run_text(text);
        fail_countdown = 0;
        if (!oom_injected)
            break;
    }
    oom_mode = false;
    return k;
}
#endif

/* A growable set of inputs: the seeds, then mutants that parsed. */
typedef struct pool {
    char **items;
    size_t n, cap;
} pool;

/* Adds a copy of text (n bytes) to the pool; a full pool replaces a
 * random non-seed entry.  Exits on OOM (the driver's own memory). */
static void pool_add(pool *p, const char *text, size_t n, size_t keep, uint64_t r)
{
    char *copy = malloc(n + 1);
    if (!copy) {
        fprintf(stderr, "fuzz_schema: out of memory\n");
        exit(2);
    }
    memcpy(copy, text, n);
    copy[n] = '\0';
    if (p->n == p->cap && p->cap >= 4096 && p->n > keep) {
        size_t victim = keep + (size_t)(r % (p->n - keep));
        free(p->items[victim]);
        p->items[victim] = copy;
        return;
    }
    if (p->n == p->cap) {
        size_t ncap = p->cap ? p->cap * 2 : 64;
        char **ni = realloc(p->items, ncap * sizeof *ni);
        if (!ni) {
            fprintf(stderr, "fuzz_schema: out of memory\n");
            exit(2);
        }
        p->items = ni;
        p->cap = ncap;
    }
    p->items[p->n++] = copy;
}

/* Reads a whole file into the pool as one input. */
static void load_file(pool *p, const char *path)
{
    char buf[FUZZ_MAX_INPUT];
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fuzz_schema: cannot open %s\n", path);
        exit(2);
    }
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    while (n > 0 && buf[n - 1] == '\n')
        n--;
    pool_add(p, buf, n, 0, 0);
}

/* Reads each non-comment line of a file into the pool as an input
 * (the part after a TAB, if any, so the malformed list works too). */
static void load_lines(pool *p, const char *path)
{
    char buf[8192];
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "fuzz_schema: cannot open %s\n", path);
        exit(2);
    }
    while (fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\r\n")] = '\0';
        if (buf[0] == '#' || buf[0] == '\0')
            continue;
        char *tab = strchr(buf, '\t');
        const char *text = tab ? tab + 1 : buf;
        pool_add(p, text, strlen(text), 0, 0);
    }
    fclose(f);
}

/* splitmix64: a small deterministic generator. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Pieces of the grammar the mutator inserts. */
/* clang-format off */
static const char *const tokens[] = {
    "Tensor", "Tensor?", "Tensor[]", "Tensor?[]", "Tensor(a)", "Tensor(a!)", "Tensor(a -> *)",
    "Tensor(a!)[]", "(b!)", "(a|b)", "(a! -> a|b)", "int", "int[2]", "int[1]?", "SymInt[]",
    "Scalar", "float", "bool", "str", "ScalarType?", "Layout", "Device", "MemoryFormat",
    "Generator?", "Dimname", "Storage", "Stream", "QScheme", "Any", "SymBool", "DeviceIndex",
    " self", " other", " out", "*, ", ", ", "(", ")", "[", "]", "?", "!", "|", "->", " -> ",
    "=None", "=True", "=False", "=1", "=-100", "=1e-05", "=0.5", "=-inf", "=nan", "=[0,1]",
    "=[]", "=[-2, -1]", "='none'", "=\"mean\"", "=\"\\\"'\\\\\"", "=Mean", "=contiguous_format",
    "=9223372036854775807", "=-9223372036854775808", "=99999999999999999999", "=1e999",
    "()", "(Tensor, Tensor)", "(Tensor values, Tensor indices)", "__and__", ".Tensor", "_",
    " ", "\t", "\n", "\\", "'", "\"", "\x80", "\xff", "\x01",
};
/* clang-format on */

/* Applies a few random edits to buf (len bytes, capacity cap); returns the
 * new length. */
static size_t mutate(char *buf, size_t len, size_t cap, const pool *p, uint64_t *rng)
{
    int edits = 1 + (int)(next_random(rng) % 6);
    for (int e = 0; e < edits; e++) {
        uint64_t r = next_random(rng);
        size_t pos = len ? (size_t)(next_random(rng) % (len + 1)) : 0;
        switch (r % 8) {
        case 0: /* flip a bit */
            if (len)
                buf[pos % len] ^= (char)(1u << (r >> 8) % 8);
            break;
        case 1: /* set a byte to a grammar character */
            if (len)
                buf[pos % len] = "(),[]?!*=->. '\"\\|aTs0-9_\t"[(r >> 8) % 25];
            break;
        case 2: { /* delete a range */
            size_t n = 1 + (size_t)((r >> 8) % 16);
            if (pos + n > len)
                n = len - pos;
            memmove(buf + pos, buf + pos + n, len - pos - n);
            len -= n;
            break;
        }
        case 3: { /* duplicate a range */
            size_t from = len ? (size_t)((r >> 8) % len) : 0;
            size_t n = 1 + (size_t)((r >> 20) % 24);
            if (from + n > len)
                n = len - from;
            if (len + n >= cap)
                break;
            memmove(buf + pos + n, buf + pos, len - pos);
            memmove(buf + pos, buf + (from >= pos ? from + n : from), n);
            len += n;
            break;
        }
        case 4:
        case 5: { /* insert a token */
            const char *t = tokens[(r >> 8) % (sizeof tokens / sizeof tokens[0])];
            size_t n = strlen(t);
            if (len + n >= cap)
                break;
            memmove(buf + pos + n, buf + pos, len - pos);
            memcpy(buf + pos, t, n);
            len += n;
            break;
        }
        case 6: { /* splice: the tail of another input */
            const char *other = p->items[(r >> 8) % p->n];
            size_t olen = strlen(other);
            size_t from = olen ? (size_t)((r >> 24) % olen) : 0;
            size_t n = olen - from;
            if (pos + n >= cap)
                n = cap - pos - 1;
            memcpy(buf + pos, other + from, n);
            len = pos + n;
            break;
        }
        default: /* swap two bytes */
            if (len > 1) {
                size_t q = (size_t)((r >> 8) % len);
                char c = buf[pos % len];
                buf[pos % len] = buf[q];
                buf[q] = c;
            }
            break;
        }
    }
    buf[len] = '\0';
    return len;
}

/* Prints the driver's usage. */
static void usage(void)
{
    fprintf(stderr,
            "usage: fuzz_schema [-s SEED] [-t SECONDS] [-n ITERATIONS] [-m] [-l LINES_FILE]... "
            "[FILE]...\n"
            "  Replays each FILE (one schema per file) and each line of each LINES_FILE\n"
            "  (text after a TAB if there is one); with -t or -n it then mutates them\n"
            "  randomly from SEED.  -m also reruns every seed with each allocation failing\n"
            "  in turn (needs a build with CLOPS_FUZZ_WRAP_MALLOC).\n");
}

/* Replays the inputs, then mutates them for the given budget. */
int main(int argc, char **argv)
{
    pool p = {NULL, 0, 0};
    uint64_t rng = 1;
    double seconds = 0;
    long iterations = 0;
    bool oom = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-s") == 0 && i + 1 < argc)
            rng = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
            seconds = strtod(argv[++i], NULL);
        else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
            iterations = strtol(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "-l") == 0 && i + 1 < argc)
            load_lines(&p, argv[++i]);
        else if (strcmp(argv[i], "-m") == 0)
            oom = true;
        else if (argv[i][0] == '-') {
            usage();
            return 2;
        } else
            load_file(&p, argv[i]);
    }
    if (p.n == 0) {
        usage();
        return 2;
    }
    size_t seeds = p.n;
    for (size_t i = 0; i < seeds; i++)
        run_text(p.items[i]);
    printf("fuzz_schema: replayed %zu inputs\n", seeds);

    if (oom) {
#ifdef CLOPS_FUZZ_WRAP_MALLOC
        long runs = 0;
        for (size_t i = 0; i < seeds; i++)
            runs += run_with_oom(p.items[i]);
        printf("fuzz_schema: %ld runs with an injected allocation failure\n", runs);
#else
        fprintf(stderr, "fuzz_schema: -m needs a build with CLOPS_FUZZ_WRAP_MALLOC\n");
        return 2;
#endif
    }

    static char buf[FUZZ_MAX_INPUT];
    time_t start = time(NULL);
    long done = 0, parsed = 0;
    while ((iterations > 0 && done < iterations) ||
           (seconds > 0 && difftime(time(NULL), start) < seconds)) {
        const char *base = p.items[next_random(&rng) % p.n];
        size_t len = strlen(base);
        if (len >= 4096)
            len = 4095;
        memcpy(buf, base, len);
        len = mutate(buf, len, 4096, &p, &rng);
        if (run_text(buf)) {
            parsed++;
            pool_add(&p, buf, len, seeds, next_random(&rng));
        }
        done++;
    }
    if (done)
        printf("fuzz_schema: %ld mutated inputs, %ld parsed, pool of %zu\n", done, parsed, p.n);
    for (size_t i = 0; i < p.n; i++)
        free(p.items[i]);
    free(p.items);
    return 0;
}
#endif /* CLOPS_FUZZ_STANDALONE */
