# SPDX-License-Identifier: Apache-2.0
"""clops: portable tensor operators on OpenCL.  `import clops.torch` adds the
PyTorch device "clops" (see docs/torch.md)."""
