# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""onchip: exact GPU histograms at the memory-read ceiling for PyTorch, CuPy and any DLPack array.

``histogram`` and ``bincount`` follow NumPy's names and rules, take and return arrays of the caller's framework
on the caller's device, run on the caller's stream and never make the host wait for the GPU (with torch they are
also custom operators that ``torch.compile`` traces through, and they can be captured in CUDA graphs).
"""
import sys as _sys

from . import _arrays
from ._api import COUNT_DTYPES, SAMPLE_DTYPES, WEIGHT_DTYPES, bincount, histogram

if "torch" in _sys.modules:  # register the custom operators before any torch.compile traces a call
    _arrays._load("torch")

__all__ = ["histogram", "bincount", "SAMPLE_DTYPES", "COUNT_DTYPES", "WEIGHT_DTYPES", "device_count",
           "architectures", "__version__"]

try:
    from importlib.metadata import version as _version

    __version__ = _version("onchip")
except Exception:  # pragma: no cover - running from a source tree
    __version__ = "0+unknown"


def device_count() -> int:
    """Number of CUDA devices this process can use (0 without a GPU or driver)."""
    from . import _core

    return _core.device_count()


def architectures() -> str:
    """The GPU architectures the compiled kernels were built for (CMake's CMAKE_CUDA_ARCHITECTURES)."""
    from . import _core

    return _core.architectures
