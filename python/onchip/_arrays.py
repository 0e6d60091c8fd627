# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The caller's framework, seen through one small interface: dtypes, devices, pointers, streams and the few array
operations the histogram functions need (allocation, edges, offsets, casts). Each runs on the device and the
stream of the caller's framework, and none waits for the GPU."""
from __future__ import annotations

import contextlib
import sys
from typing import Any, Optional, Sequence, Tuple

# Element sizes of the dtypes the package knows, by NumPy's names.
ITEMSIZE = {
    "uint8": 1, "int8": 1, "uint16": 2, "int16": 2, "uint32": 4, "int32": 4, "int64": 8, "uint64": 8,
    "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "bool": 1,
}
INTEGER = ("uint8", "int8", "uint16", "int16", "uint32", "int32", "int64", "uint64")
FLOATING = ("float16", "bfloat16", "float32", "float64")


class Framework:
    """What the histogram functions need of an array library."""

    name = ""

    def owns(self, x: Any) -> bool:
        raise NotImplementedError

    def dtype_name(self, x: Any) -> str:
        raise NotImplementedError

    def device(self, x: Any, what: str) -> int:
        raise NotImplementedError

    def pointer(self, x: Any) -> int:
        raise NotImplementedError

    def shape(self, x: Any) -> Tuple[int, ...]:
        return tuple(int(d) for d in x.shape)

    def strides(self, x: Any) -> Tuple[int, ...]:
        """Strides in bytes."""
        raise NotImplementedError

    def current_stream(self, device: int) -> int:
        raise NotImplementedError

    def stream_scope(self, handle: int, device: int) -> Any:
        """A context in which the framework's own operations run on stream `handle` (so that the arrays a call
        makes and converts are ordered with its kernels there)."""
        return contextlib.nullcontext()

    def empty(self, shape: Sequence[int], dtype: str, device: int) -> Any:
        raise NotImplementedError

    def zeros(self, shape: Sequence[int], dtype: str, device: int) -> Any:
        raise NotImplementedError

    def linspace(self, lower: float, upper: float, num: int, dtype: str, device: int) -> Any:
        raise NotImplementedError

    def row_offsets(self, rows: int, row_samples: int, device: int) -> Any:
        """int64 offsets 0, row_samples, ..., rows * row_samples."""
        raise NotImplementedError

    def levels(self, edges: Any, dtype: str, upper_included: bool) -> Any:
        """A contiguous copy of `edges` in floating-point `dtype`, its last value raised to the next one above it
        when `upper_included` (so that half-open bins hold the top edge, as NumPy's last bin does)."""
        raise NotImplementedError

    def copy_into(self, out: Any, src: Any, accumulate: bool) -> None:
        """out = src (or out += src), converting to out's dtype."""
        raise NotImplementedError

    def cast(self, a: Any, dtype: str) -> Any:
        """A copy of `a` in `dtype`."""
        raise NotImplementedError

    def scalar_view(self, x: Any) -> Any:
        """A 0-d view of a 1-element array."""
        return x.reshape(())

    def wrap_result(self, x: Any, original: Any) -> Any:
        return x


def _stream_handle(stream: Any) -> Optional[int]:
    """A raw cudaStream_t from an int, a torch or CuPy stream, or an object with __cuda_stream__."""
    if stream is None:
        return None
    if isinstance(stream, bool):
        raise TypeError("stream: expected a stream object or an integer handle, got a bool")
    if isinstance(stream, int):
        return stream
    if hasattr(stream, "__cuda_stream__"):
        protocol = stream.__cuda_stream__()
        return int(protocol[1])
    for attribute in ("cuda_stream", "ptr", "handle"):
        if hasattr(stream, attribute):
            return int(getattr(stream, attribute))
    raise TypeError(f"stream: expected a torch.cuda.Stream, a cupy.cuda.Stream, an object with __cuda_stream__ or "
                    f"an integer handle, got {type(stream).__name__}")


class Torch(Framework):
    name = "torch"

    def __init__(self) -> None:
        import torch

        self.torch = torch
        names = {
            torch.uint8: "uint8", torch.int8: "int8", torch.int16: "int16", torch.int32: "int32",
            torch.int64: "int64", torch.float16: "float16", torch.bfloat16: "bfloat16",
            torch.float32: "float32", torch.float64: "float64", torch.bool: "bool",
        }
        for name in ("uint16", "uint32", "uint64"):
            if hasattr(torch, name):
                names[getattr(torch, name)] = name
        self.names = names
        self.dtypes = {v: k for k, v in names.items()}
        try:  # registers onchip's custom operators with torch (torch.library.custom_op: torch 2.4 and newer)
            from . import _torch_ops

            self.ops = _torch_ops
        except (ImportError, AttributeError):
            self.ops = None

    def owns(self, x: Any) -> bool:
        return isinstance(x, self.torch.Tensor)

    def dtype_name(self, x: Any) -> str:
        return self.names.get(x.dtype, str(x.dtype).replace("torch.", ""))

    def device(self, x: Any, what: str) -> int:
        if x.device.type != "cuda":
            raise TypeError(f"{what} is on the {x.device.type} device: onchip counts on the GPU; move it there first "
                            f"({what}.cuda() or {what}.to('cuda'))")
        return int(x.device.index if x.device.index is not None else self.torch.cuda.current_device())

    def pointer(self, x: Any) -> int:
        return int(x.data_ptr())

    def strides(self, x: Any) -> Tuple[int, ...]:
        size = x.element_size()
        return tuple(int(s) * size for s in x.stride())

    def current_stream(self, device: int) -> int:
        return int(self.torch.cuda.current_stream(device).cuda_stream)

    def stream_scope(self, handle, device):
        return self.torch.cuda.stream(self.torch.cuda.ExternalStream(handle, device=f"cuda:{device}"))

    def empty(self, shape, dtype, device):
        return self.torch.empty(tuple(shape), dtype=self.dtypes[dtype], device=f"cuda:{device}")

    def zeros(self, shape, dtype, device):
        return self.torch.zeros(tuple(shape), dtype=self.dtypes[dtype], device=f"cuda:{device}")

    def linspace(self, lower, upper, num, dtype, device):
        edges = self.torch.linspace(lower, upper, num, dtype=self.torch.float64, device=f"cuda:{device}")
        return edges if dtype == "float64" else edges.to(self.dtypes[dtype])

    def row_offsets(self, rows, row_samples, device):
        if row_samples == 0:
            return self.torch.zeros(rows + 1, dtype=self.torch.int64, device=f"cuda:{device}")
        return self.torch.arange(0, (rows + 1) * row_samples, row_samples, dtype=self.torch.int64,
                                 device=f"cuda:{device}")

    def levels(self, edges, dtype, upper_included):
        levels = edges.to(dtype=self.dtypes[dtype], copy=True).contiguous()
        if upper_included:
            top = levels[-1:]
            top.copy_(self.torch.nextafter(top, self.torch.full_like(top, float("inf"))))
        return levels

    def copy_into(self, out, src, accumulate):
        if accumulate:
            out.add_(src.to(out.dtype))
        else:
            out.copy_(src)

    def cast(self, a, dtype):
        return a.to(self.dtypes[dtype])


class CuPy(Framework):
    name = "cupy"

    def __init__(self) -> None:
        import cupy

        self.cupy = cupy

    def owns(self, x: Any) -> bool:
        return isinstance(x, self.cupy.ndarray)

    def dtype_name(self, x: Any) -> str:
        return str(x.dtype)

    def device(self, x: Any, what: str) -> int:
        return int(x.device.id)

    def pointer(self, x: Any) -> int:
        return int(x.data.ptr)

    def strides(self, x: Any) -> Tuple[int, ...]:
        return tuple(int(s) for s in x.strides)

    def current_stream(self, device: int) -> int:
        with self.cupy.cuda.Device(device):
            return int(self.cupy.cuda.get_current_stream().ptr)

    def stream_scope(self, handle, device):
        with self.cupy.cuda.Device(device):
            return self.cupy.cuda.ExternalStream(handle)

    def empty(self, shape, dtype, device):
        with self.cupy.cuda.Device(device):
            return self.cupy.empty(tuple(shape), dtype=dtype)

    def zeros(self, shape, dtype, device):
        with self.cupy.cuda.Device(device):
            return self.cupy.zeros(tuple(shape), dtype=dtype)

    def linspace(self, lower, upper, num, dtype, device):
        with self.cupy.cuda.Device(device):
            return self.cupy.linspace(lower, upper, num, dtype="float64").astype(dtype, copy=False)

    def row_offsets(self, rows, row_samples, device):
        with self.cupy.cuda.Device(device):
            return self.cupy.arange(rows + 1, dtype="int64") * row_samples

    def levels(self, edges, dtype, upper_included):
        with edges.device:
            levels = self.cupy.array(edges, dtype=dtype, copy=True, order="C")
            if upper_included:
                levels[-1:] = self.cupy.nextafter(levels[-1:], self.cupy.inf)
            return levels

    def copy_into(self, out, src, accumulate):
        with out.device:
            if accumulate:
                out += src.astype(out.dtype, copy=False)
            else:
                out[...] = src

    def cast(self, a, dtype):
        with a.device:
            return a.astype(dtype)


_frameworks: list = []
_tried = set()


def _load(name: str) -> None:
    if name in _tried:
        return
    _tried.add(name)
    try:
        _frameworks.append(Torch() if name == "torch" else CuPy())
    except ImportError:
        pass


def framework_of(x: Any, what: str = "x") -> Framework:
    """The framework of torch and CuPy arrays (TypeError for host arrays and for other objects)."""
    for f in _frameworks:  # the frameworks already seen first: no module lookups while torch.compile traces
        if f.owns(x):
            return f
    module = type(x).__module__.split(".")[0]
    if module in ("torch", "cupy") and module in sys.modules:
        _load(module)
        for f in _frameworks:
            if f.owns(x):
                return f
    if module == "numpy" or (hasattr(x, "__array_interface__") and not hasattr(x, "__cuda_array_interface__")):
        raise TypeError(f"{what} is a host (NumPy) array: onchip counts on the GPU; give a GPU array (torch, CuPy or "
                        f"any DLPack producer), e.g. cupy.asarray({what}) or torch.from_numpy({what}).cuda()")
    if module == "builtins" or not (hasattr(x, "__dlpack__") or hasattr(x, "__cuda_array_interface__")):
        raise TypeError(f"{what}: expected a GPU array (torch.Tensor, cupy.ndarray or a DLPack producer), "
                        f"got {type(x).__name__}")
    raise LookupError(module)  # a foreign GPU array: the caller views it through torch or CuPy


def view_foreign(x: Any, what: str) -> Tuple[Framework, Any, Any]:
    """A zero-copy torch or CuPy view of another producer's GPU array (DLPack, else the CUDA array interface),
    and a function that gives results back as that producer's arrays where it imports DLPack (JAX) or the CUDA
    array interface (Numba); otherwise results stay torch or CuPy arrays."""
    module = type(x).__module__.split(".")[0]
    for name in ("torch", "cupy"):
        _load(name)
    if not _frameworks:
        raise TypeError(f"{what} ({type(x).__name__}): arrays other than torch and CuPy are read through torch or "
                        f"CuPy, and neither is installed")
    f = _frameworks[0]
    if hasattr(x, "__dlpack__"):
        view = f.torch.from_dlpack(x) if f.name == "torch" else f.cupy.from_dlpack(x)
    elif f.name == "torch":
        view = f.torch.as_tensor(x, device="cuda")
    else:
        view = f.cupy.asarray(x)
    f.device(view, what)
    back = lambda a: a  # noqa: E731
    if module in ("jax", "jaxlib"):
        import jax.numpy as jnp

        back = jnp.from_dlpack
    elif module == "numba":
        from numba import cuda as numba_cuda

        back = numba_cuda.as_cuda_array
    return f, view, back


def stream_of(framework: Framework, stream: Any, device: int) -> int:
    handle = _stream_handle(stream)
    return framework.current_stream(device) if handle is None else handle


def stream_scope(framework: Framework, stream: Any, device: int) -> Any:
    """The framework's context for an explicit `stream` (nothing to enter for the default, the current stream)."""
    handle = _stream_handle(stream)
    return contextlib.nullcontext() if handle is None else framework.stream_scope(handle, device)
