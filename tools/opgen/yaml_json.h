/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tools/opgen/yaml_json.h: a YAML node as JSON text, the one conversion
 * the build-time generator (the inventory's `check:` hints) and the
 * benchmark runner (the descriptors bench/cases/NAME.yaml) share.
 */
#ifndef CLOPS_TOOLS_OPGEN_YAML_JSON_H
#define CLOPS_TOOLS_OPGEN_YAML_JSON_H

#include <yaml.h>

#include "core/strbuf.h"

/* Appends node n of doc as JSON: plain scalars that read as null, booleans
 * or numbers keep that type; everything else is a string. */
void yaml_to_json(strbuf *sb, yaml_document_t *doc, yaml_node_t *n);

#endif /* CLOPS_TOOLS_OPGEN_YAML_JSON_H */
