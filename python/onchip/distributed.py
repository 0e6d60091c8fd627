# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Histograms of a tensor sharded across the ranks of a ``torch.distributed`` process group: onchip counts this
rank's shard on the current stream, then ``all_reduce`` sums the int64 counts over the group. With the NCCL backend
both are stream-ordered, so a training step that calls these makes the host wait for nothing and can be captured
in a CUDA graph; every rank ends with the whole histogram.

    # torchrun --nproc_per_node=8 train.py
    counts = onchip.distributed.bincount(expert_ids, num_experts)        # tokens per expert over all ranks
    hist, edges = onchip.distributed.histogram(activations, 256, (-8, 8))
"""
from typing import Any, Optional, Tuple

import onchip

__all__ = ["histogram", "bincount"]


def _group_ready() -> Any:
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_initialized():
        raise RuntimeError("onchip.distributed needs an initialized process group (torch.distributed."
                           "init_process_group); for one process use onchip.histogram / onchip.bincount")
    return dist


def _all_reduce(dist: Any, hist: Any, group: Any, async_op: bool):
    return dist.all_reduce(hist, op=dist.ReduceOp.SUM, group=group, async_op=async_op)


def histogram(x: Any, bins: Any, range: Optional[Tuple[float, float]] = None, *, weights: Any = None,
              group: Any = None, async_op: bool = False, **kwargs: Any):
    """onchip.histogram of this rank's shard `x`, summed over `group` (default: the world): ``(hist, edges)``, and
    the all-reduce's work handle last with ``async_op=True``. Other keyword arguments go to onchip.histogram."""
    dist = _group_ready()
    hist, edges = onchip.histogram(x, bins, range, weights=weights, **kwargs)
    work = _all_reduce(dist, hist, group, async_op)
    return (hist, edges, work) if async_op else (hist, edges)


def bincount(x: Any, minlength: int, *, weights: Any = None, group: Any = None, async_op: bool = False,
             **kwargs: Any):
    """onchip.bincount of this rank's shard `x`, summed over `group`; with ``async_op=True`` also the work
    handle."""
    dist = _group_ready()
    counts = onchip.bincount(x, minlength, weights=weights, **kwargs)
    work = _all_reduce(dist, counts, group, async_op)
    return (counts, work) if async_op else counts
