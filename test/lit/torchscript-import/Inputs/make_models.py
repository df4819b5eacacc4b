#!/usr/bin/env python3
"""Small TorchScript modules for the frontend's error and plumbing tests.

    /usr/bin/python3 make_models.py [OUTDIR]

unsupported.{scripted,traced}.pt   two ops kiln lacks (cumsum, erfinv)
two_inputs.scripted.pt             forward(image, mask) -> tuple of two
dict_out.scripted.pt               returns a dict {"logits", "probs"}
int_input.scripted.pt              forward(x, n: int)
torchvision_nms.traced.pt          boxes and scores through torchvision's nms
                                   (torchvision::nms, which libtorch alone
                                   does not register)
"""
import os
import sys
from typing import Dict, Tuple

import torch


class Unsupported(torch.nn.Module):
    def forward(self, x):
        y = torch.relu(x)
        z = torch.cumsum(y, 1)
        return torch.erfinv(z)


class TwoInputs(torch.nn.Module):
    def forward(self, image, mask) -> Tuple[torch.Tensor, torch.Tensor]:
        parts = torch.chunk(image * mask, 2, 1)
        return parts[0] + 1.0, torch.cat([parts[1], mask], 1)


class DictOut(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x) -> Dict[str, torch.Tensor]:
        logits = self.fc(x)
        out: Dict[str, torch.Tensor] = {}
        out["logits"] = logits
        out["probs"] = torch.softmax(logits, -1)
        return out


class IntInput(torch.nn.Module):
    def forward(self, x, n: int):
        return x * n


class TorchvisionNms(torch.nn.Module):
    def forward(self, boxes, scores):
        keep = torch.ops.torchvision.nms(boxes, scores, 0.5)
        return boxes[keep]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    torch.manual_seed(0)
    torch.jit.script(Unsupported()).save(os.path.join(out, "unsupported.scripted.pt"))
    torch.jit.trace(Unsupported(), torch.rand(1, 4)).save(os.path.join(out, "unsupported.traced.pt"))
    torch.jit.script(TwoInputs()).save(os.path.join(out, "two_inputs.scripted.pt"))
    torch.jit.script(DictOut().eval()).save(os.path.join(out, "dict_out.scripted.pt"))
    torch.jit.script(IntInput()).save(os.path.join(out, "int_input.scripted.pt"))
    import torchvision  # noqa: F401 - registers torch.ops.torchvision
    boxes = torch.tensor([[0.0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30]])
    torch.jit.trace(TorchvisionNms(), (boxes, torch.tensor([0.9, 0.8, 0.7]))).save(
        os.path.join(out, "torchvision_nms.traced.pt"))


if __name__ == "__main__":
    main()
