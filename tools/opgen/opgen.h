/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/opgen/opgen.h: the model of clops-opgen, the build-time generator
 * that turns the operator inventory (the YAML files of dispatch/inventory/) into C.
 *
 * opgen.c reads the YAML files into a list of gen_op records (deriving the
 * in-place and out variants of structured and pointwise families) and checks
 * them (opgen_pw.c reads the pointwise op records, `pointwise_op:`
 * entries); opgen_emit.c writes the public header, the internal header, the
 * registration table with wrappers and adapters, and the Markdown reference.
 * The format of the YAML and the C calling convention are documented in
 * docs/operator-inventory.md.
 */
#ifndef CLOPS_OPGEN_H
#define CLOPS_OPGEN_H

#include <stdbool.h>
#include <stdio.h>

#include <yaml.h>

#include "core/strbuf.h"
#include "dispatch/schema.h"

/* Dispatch keys in the order of CLOPS_DISPATCH_KEY_LIST. */
#define GEN_NKEYS 8
extern const char *const gen_key_names[GEN_NKEYS];
extern const char *const gen_key_enums[GEN_NKEYS];
#define GEN_KEY_CPU 0
#define GEN_KEY_OPENCL 6

typedef enum gen_impl {
    GEN_IMPL_NONE,       /* declared only */
    GEN_IMPL_KERNELS,    /* typed kernel functions per key */
    GEN_IMPL_POINTWISE,  /* a pw_op through pw_bound_run */
    GEN_IMPL_STRUCTURED  /* structured family functions per key */
} gen_impl;

typedef enum gen_variant { GEN_FUNCTIONAL, GEN_INPLACE, GEN_OUT } gen_variant;

typedef struct gen_op {
    op_schema *schema;
    char *qname;       /* "add.Tensor" */
    char *schema_text; /* canonical text */
    char *cname;       /* "clops_add" */
    char *ident;       /* "add_Tensor": for generated symbol names */
    char *tags;        /* "pointwise,core" */
    gen_impl impl;
    char *fns[GEN_NKEYS]; /* kernel or structured function per key, NULL if none */
    char *pw_name;        /* pointwise: the pw_op name */
    int binding;          /* pointwise: index into the binding table */
    gen_variant variant;
    int dst_arg;          /* in-place/out: index of the written argument */
    bool derived;         /* generated from another entry's `variants` */
    bool no_device_check; /* device from the first tensor only (copies) */
    char *check;          /* `check:` hints as JSON text, NULL if none */
    const char *file;
    int line;
} gen_op;

/* A pointwise op record (a `pointwise_op:` entry, opgen_pw.c). */
typedef struct gen_pw {
    char *name; /* the record is pw_op_<name> */
    char *init; /* the C definition of the record */
    const char *file;
    int line;
} gen_pw;

/* pw.h's PW_MAX_IN and PW_MAX_PARAMS (operands and scalar parameters). */
#define GEN_PW_MAX_IN 4
#define GEN_PW_MAX_PARAMS 4

typedef struct gen_model {
    gen_op *ops;
    int nops;
    int cap;
    int nbindings;
    gen_pw *pws;
    int npws;
    int pwcap;
} gen_model;

/* Loads and checks every file; CLOPS_OK or an error printed to stderr. */
int gen_load(gen_model *m, char **files, int nfiles);
/* Frees everything the model owns (also after a failed gen_load). */
void gen_model_free(gen_model *m);

/* Writes the outputs into dir.  Returns 0 on success. */
int gen_emit(const gen_model *m, const char *dir);

/* Helpers of the readers (opgen.c): a build error located at file:line
 * (returns 1); strdup that exits when memory runs out; a scalar node's text
 * (NULL for another node); a mapping's value for key (NULL when absent). */
int gen_fail(const char *file, int line, const char *fmt, ...) CLOPS__PRINTF(3, 4);
char *gen_xstrdup(const char *s);
const char *gen_scalar(yaml_document_t *doc, yaml_node_t *n);
yaml_node_t *gen_map_get(yaml_document_t *doc, yaml_node_t *map, const char *key);

/* Reads one `pointwise_op:` entry into m->pws; 0, or 1 after printing a
 * positioned error. */
int gen_pw_load(gen_model *m, const char *file, yaml_document_t *doc, yaml_node_t *entry);
void gen_pw_free(gen_model *m);
/* Appends codegen_pointwise/pw_ops_generated.c: every record, in order. */
void gen_pw_emit(strbuf *sb, const gen_model *m);

/* C parameter list of an op's typed signature (without parentheses);
 * structured adds the two leading family arguments and the functional
 * `**out` return. */
void gen_c_params(strbuf *sb, const gen_op *op);
/* Argument names in call order (matching gen_c_params). */
void gen_c_call_args(strbuf *sb, const gen_op *op);
/* True if schema argument `a` contributes to the C signature of returns. */
int gen_fresh_returns(const gen_op *op);

#endif /* CLOPS_OPGEN_H */
