# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Per-image histograms of a batch (one launch for all rows), and the per-channel histograms of RGB images."""
import torch

import onchip


def main():
    torch.manual_seed(0)
    batch = torch.randint(0, 256, (512, 64, 64), dtype=torch.uint8, device="cuda")   # 512 grey images
    per_image, edges = onchip.histogram(batch.view(512, -1), 256, (0, 256), axis=-1)  # (512, 256) int64
    for i in (0, 511):
        assert torch.equal(per_image[i], torch.bincount(batch[i].flatten(), minlength=256))
    print(f"per-image histograms {tuple(per_image.shape)}; image 0, bins 0-3: {per_image[0, :4].tolist()}")

    rgb = torch.randint(0, 256, (1080, 1920, 3), dtype=torch.uint8, device="cuda")
    per_channel, _ = onchip.histogram(rgb, 64, (0, 256), channels=3)                # (3, 64)
    for c in range(3):
        assert torch.equal(per_channel[c], torch.bincount(rgb[..., c].flatten() // 4, minlength=64))
    print(f"RGB channel histograms {tuple(per_channel.shape)}; pixels per channel {per_channel.sum(1).tolist()}")


if __name__ == "__main__":
    main()
