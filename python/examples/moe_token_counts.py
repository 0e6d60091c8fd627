# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Mixture-of-experts routing: tokens per expert inside a torch.compile'd step, without the host synchronization
of torch.bincount, and the same step captured in a CUDA graph and replayed."""
import torch

import onchip

EXPERTS, TOP_K = 64, 2


@torch.compile(fullgraph=True)
def route(hidden: torch.Tensor, gate: torch.Tensor):
    scores = hidden @ gate                                   # (tokens, experts)
    weights, experts = scores.softmax(-1).topk(TOP_K, dim=-1)
    tokens_per_expert = onchip.bincount(experts, EXPERTS)   # int64 (experts,), no host sync
    load = tokens_per_expert.float() / experts.numel()
    return experts, weights, tokens_per_expert, (load * load).sum() * EXPERTS  # an auxiliary balance loss


def main():
    torch.manual_seed(0)
    hidden = torch.randn(8192, 1024, device="cuda")
    gate = torch.randn(1024, EXPERTS, device="cuda") / 32
    experts, _, counts, aux = route(hidden, gate)
    reference = torch.bincount(experts.flatten(), minlength=EXPERTS)
    assert torch.equal(counts, reference), "counts differ from torch.bincount"
    print(f"tokens per expert (first 8): {counts[:8].tolist()}; balance loss {aux.item():.3f}")

    # The counting alone in a CUDA graph (torch.bincount cannot be captured: it reads its input's maximum on the host).
    ids = experts.flatten().clone()
    out = torch.zeros(EXPERTS, dtype=torch.int64, device="cuda")
    onchip.bincount(ids, EXPERTS, out=out)  # warm-up outside the capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        onchip.bincount(ids, EXPERTS, out=out)
    ids.copy_(torch.randint(0, EXPERTS, ids.shape, device="cuda"))
    graph.replay()
    assert torch.equal(out, torch.bincount(ids, minlength=EXPERTS)), "replayed counts differ"
    print("captured in a CUDA graph and replayed: counts match")


if __name__ == "__main__":
    main()
