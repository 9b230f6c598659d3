/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops/kit/kind.c: the device-kind seam, a family's launch picked by the
 * kind of device (ops/kit/kit.h).
 */
#include "ops/kit/kit.h"

static const char *const kind_names[KIT_KIND_COUNT] = {"host CPU", "CPU-like OpenCL",
                                                      "GPU OpenCL", "matrix-unit GPU"};

kit_launch kit_pick(const kit_launches *l, const clops_device *d)
{
    kit_kind k = kit_kind_of(d);
    if (l->by_kind[k])
        return l->by_kind[k];
    return k == KIT_HOST ? NULL : l->by_kind[KIT_GPU];
}

clops_status kit_run(const kit_launches *l, clops_device *d, void *plan)
{
    kit_launch f = kit_pick(l, d);
    if (!f)
        return clops__fail(CLOPS_UNSUPPORTED, "%s: no launch for a %s device (%s)", l->family,
                           kind_names[kit_kind_of(d)], d->label);
    return f(plan);
}
