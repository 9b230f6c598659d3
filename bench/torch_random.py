#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/torch_random.py: `torch_family.py --family random`, PyTorch on the rows of
bench/cases/random.yaml (what bench_random times on clops); the options are
torch_family.py's."""
import sys

from torch_family import main

if __name__ == "__main__":
    sys.exit(main(["--family", "random"] + sys.argv[1:]))
