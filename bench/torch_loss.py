#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_loss.py: `torch_family.py --family loss`, PyTorch on the rows of
bench/cases/loss.yaml (what bench_loss times on clops); the options are
torch_family.py's."""
import sys

from torch_family import main

if __name__ == "__main__":
    sys.exit(main(["--family", "loss"] + sys.argv[1:]))
