"""A briefly trained variant of make_models.py's BERT-style encoder, for
checking int8 accuracy against fp32 on a task rather than on random
weights. The task is synthetic (nothing is downloaded): token ids 1..999,
padded with 0 to 16; the label says whether any of the keyword tokens 1..50
occurs (about half the sequences). About a minute on one core; 95%
held-out accuracy. Writes bert_task.* to OUTDIR (task_training.py: ids int64
[512, 16], logits [512, 2]).
usage: train_bert_task.py OUTDIR"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_models import TinyBert  # noqa: E402
from task_training import train_and_write  # noqa: E402

SEQ, KEYWORDS = 16, 50


def sample(gen, n):
    ids = torch.randint(1, 1000, (n, SEQ), generator=gen)
    lengths = torch.randint(8, SEQ + 1, (n, 1), generator=gen)
    ids = torch.where(torch.arange(SEQ).unsqueeze(0) < lengths, ids, 0)
    labels = ((ids >= 1) & (ids <= KEYWORDS)).any(dim=1).long()
    return ids, labels


def main():
    torch.manual_seed(0)
    train_and_write(sys.argv[1], "bert_task", TinyBert(), sample, "ids",
                    steps=220, lr=2e-3)


if __name__ == "__main__":
    main()
