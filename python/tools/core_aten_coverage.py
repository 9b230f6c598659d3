# SPDX-License-Identifier: Apache-2.0
"""Counts PyTorch's core ATen overloads the device "clops" cannot run.

An overload tagged torch.Tag.core (over torch._C._dispatch_get_all_op_names())
is covered when it has a kernel for clops' dispatch key (PrivateUse1: a clops
op bound by the bridge, a kernel of device.cpp, or a composite of
clops/torch/_core_aten.py), or a CompositeImplicitAutograd /
CompositeExplicitAutograd kernel, PyTorch's decompositions into other ops
(which reach clops kernels or, where those have none, are counted here as
well).  A CompositeExplicitAutogradNonFunctional kernel does not count: it
runs the out= or in-place variant, which PrivateUse1 does not get from it.

    python python/tools/core_aten_coverage.py [--all]

prints the number of core overloads, the covered count by kind, and the
missing ones; --all lists every core overload with how it is covered.
"""
import sys

import torch

import clops.torch  # noqa: F401  (registers the device and binds its kernels)

KINDS = ("PrivateUse1", "CompositeImplicitAutograd", "CompositeExplicitAutograd")


def core_overloads():
    """(qualified name, overload) of every core-tagged ATen overload."""
    out = []
    for full in sorted(torch._C._dispatch_get_all_op_names()):
        if not full.startswith("aten::"):
            continue
        name, _, overload = full[len("aten::"):].partition(".")
        packet = getattr(torch.ops.aten, name, None)
        if packet is None:
            continue
        try:
            op = getattr(packet, overload or "default")
        except AttributeError:
            continue
        if torch.Tag.core in op.tags:
            out.append(full)
    return out


def coverage(full):
    """The first dispatch key of KINDS with a kernel for the overload, or None."""
    for k in KINDS:
        if torch._C._dispatch_has_kernel_for_dispatch_key(full, k):
            return k
    return None


def main(argv):
    ops = core_overloads()
    by = {}
    for full in ops:
        by.setdefault(coverage(full), []).append(full)
    print(f"PyTorch {torch.__version__}: {len(ops)} core ATen overloads")
    for k in KINDS:
        print(f"  {k}: {len(by.get(k, []))}")
    missing = by.get(None, [])
    print(f"  missing (no clops kernel, no composite): {len(missing)}")
    for full in missing:
        print(f"    {full}")
    if "--all" in argv:
        for full in ops:
            print(f"{full}\t{coverage(full)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
