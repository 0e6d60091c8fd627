# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Tokens per expert over all ranks of a job, each rank counting its own shard on its GPU:

    torchrun --standalone --nproc_per_node=2 python/examples/distributed_counts.py

Each rank checks the all-reduced counts against the gathered shards counted by torch.bincount."""
import os

import torch
import torch.distributed as dist

import onchip.distributed


def main():
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)) % torch.cuda.device_count())
    experts = 64
    ids = torch.randint(0, experts, (1 << 22,), dtype=torch.int64, device="cuda",
                        generator=torch.Generator(device="cuda").manual_seed(rank))
    counts = onchip.distributed.bincount(ids, experts)          # int64 (experts,), summed over the ranks
    shards = [torch.empty_like(ids) for _ in range(world)]
    dist.all_gather(shards, ids)
    expected = torch.bincount(torch.cat(shards), minlength=experts)
    assert torch.equal(counts, expected), f"rank {rank}: all-reduced counts differ"
    if rank == 0:
        print(f"{world} ranks, {ids.numel()} ids each: {int(counts.sum())} counted, matching torch.bincount")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
