#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# GPU re-check of the verify engineer's fixes (stop 8) on the GPU host (PyTorch 2.11):
# test_gemm (tuning_files_are_checked_before_use with the shipped H100/H200 parameters)
# on NVIDIA, and the Python tests that failed there at 05:10 (test_distributed.py,
# test_accelerator.py::test_pin_memory, test_attention.py's layout and meta tests) on
# the host's default clops device (NVIDIA).  Built from .dev/early10.sh, narrowed.
set -o pipefail
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
FO=/tmp/fo; rm -rf $FO; mkdir -p $FO
fin() { tar -czf $OUT/verify7.tgz -C $FO . ; }
trap fin EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $FO/gpu.txt
python3 -c "import torch, transformers; print(torch.__version__, transformers.__version__)" | tee -a $FO/gpu.txt
cmake -S . -B /tmp/b -DCMAKE_BUILD_TYPE=Release -DCLOPS_WERROR=ON > /dev/null && timeout 120 cmake --build /tmp/b -j16 --target clops_static test_gemm > $FO/build.log 2>&1 || { tail -40 $FO/build.log; exit 1; }
el built
( cd python && CLOPS_BUILD_DIR=/tmp/b MAX_JOBS=14 CLOPS_BUILD_PROGRESS=0 timeout 150 python3 setup.py build_ext --inplace > $FO/ext.log 2>&1; echo "ext rc $?" >> $FO/ext.log ) &
EXT=$!
( cd /tmp/b/tests && CLOPS_TEST_DEVICES=nvidia timeout 100 ./test_gemm > $FO/test_gemm.log 2>&1; echo "test_gemm rc $?" >> $FO/test_gemm.log ) &
CTP=$!
wait $EXT; tail -1 $FO/ext.log
el ext
if ls python/clops/torch/_C*.so > /dev/null 2>&1; then
  (cd python/tests && PYTHONPATH=$PWD/.. timeout ${PT:-120} python3 -m pytest -q -rfE -p no:cacheprovider -n 8 test_distributed.py test_accelerator.py test_attention.py > $FO/pytest.log 2>&1); echo "pytest rc $?"
  grep -E "^FAILED|^ERROR|passed|failed" $FO/pytest.log | head -20 | cut -c1-300
fi
el pytest
wait $CTP; grep -E "PASSED|FAILED|rc " $FO/test_gemm.log | head
el done
