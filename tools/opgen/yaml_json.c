/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/opgen/yaml_json.c: a YAML node as JSON text (yaml_json.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tools/opgen/yaml_json.h"

/* True when a plain YAML scalar is a JSON number. */
static bool is_number(const char *v)
{
    char *end = NULL;
    if (!*v)
        return false;
    strtod(v, &end);
    return end && *end == '\0';
}

/* Appends a YAML node as JSON (plain scalars that read as null, booleans or
 * numbers keep that type; everything else is a string). */
void yaml_to_json(strbuf *sb, yaml_document_t *doc, yaml_node_t *n)
{
    if (!n) {
        sb_append(sb, "null");
        return;
    }
    if (n->type == YAML_SCALAR_NODE) {
        const char *v = (const char *)n->data.scalar.value;
        bool plain = n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        if (plain && (strcmp(v, "null") == 0 || strcmp(v, "~") == 0 || !*v)) {
            sb_append(sb, "null");
        } else if (plain && (strcmp(v, "true") == 0 || strcmp(v, "false") == 0)) {
            sb_append(sb, v);
        } else if (plain && is_number(v)) {
            sb_append(sb, v);
        } else {
            sb_putc(sb, '"');
            for (const char *c = v; *c; c++) {
                if (*c == '"' || *c == '\\')
                    sb_putc(sb, '\\');
                sb_putc(sb, *c);
            }
            sb_putc(sb, '"');
        }
    } else if (n->type == YAML_SEQUENCE_NODE) {
        sb_putc(sb, '[');
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
             it++) {
            if (it != n->data.sequence.items.start)
                sb_putc(sb, ',');
            yaml_to_json(sb, doc, yaml_document_get_node(doc, *it));
        }
        sb_putc(sb, ']');
    } else if (n->type == YAML_MAPPING_NODE) {
        sb_putc(sb, '{');
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
             p++) {
            if (p != n->data.mapping.pairs.start)
                sb_putc(sb, ',');
            yaml_node_t *k = yaml_document_get_node(doc, p->key);
            sb_printf(sb, "\"%s\":", k && k->type == YAML_SCALAR_NODE ?
                                          (const char *)k->data.scalar.value : "?");
            yaml_to_json(sb, doc, yaml_document_get_node(doc, p->value));
        }
        sb_putc(sb, '}');
    } else {
        sb_append(sb, "null");
    }
}
