"""Make the block-regularized example shipped with cvreport (``cvreport.load_example("bcv")``).

The same data (scikit-learn's breast-cancer set, 569 records) and the same three
classifiers as ``scripts/make_example.py``, but partitioned by
:class:`cvreport.splits.BlockRegularizedCV` with ``m = 5`` (Yang et al., Table III)
instead of Dietterich's random halves, so that the overlap audit and the reports
can be compared on a random and on a designed partitioning side by side. Writes
``cvreport/data/example_bcv.csv.gz`` with the columns
``replication, fold, model, record, truth, prediction, loss``.

Run it from the repository root: ``python scripts/make_example_bcv.py``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_example import collect_losses, default_models, load_dataset, write_example

from cvreport.splits import BlockRegularizedCV


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Make cvreport's block-regularized 5×2 example.")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    X, y = load_dataset()
    splitter = BlockRegularizedCV(m=5, random_state=args.seed)
    frame = collect_losses(splitter, default_models(args.seed), X, y, folds_per_replication=2)
    path = write_example(frame, "bcv")
    errors = frame.groupby("model", sort=False)["loss"].mean()
    print(f"wrote {len(frame)} rows to {path}")
    print(f"largest |training-set overlap − n/4|: {splitter.max_overlap_deviation(X):g}")
    print("mean 0/1 loss per model:\n" + errors.round(4).to_string())


if __name__ == "__main__":
    main()
