"""The overlap audit of a results table's partitions (Wang, Li & Li (2015); docs/methods.md)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from cvreport.data.table import ResultsTable
from cvreport.errors import DesignError
from cvreport.partitions.audit import OverlapAudit, audit_overlap
from cvreport.partitions.overlap import overlap_distribution, zmax_tail
from cvreport.partitions.splits import Balanced5x2CV, BlockRegularizedCV, RandomMx2CV


def _table(assignment: pd.DataFrame) -> ResultsTable:
    """Two models with arbitrary losses on the given (record, replication, fold) rows."""
    rng = np.random.default_rng(0)
    frames = [
        assignment.assign(model=name, loss=rng.integers(0, 2, len(assignment)).astype(float))
        for name in ("A", "B")
    ]
    return ResultsTable(pd.concat(frames, ignore_index=True))


def _from_training_sets(n: int, training: list[set[int]]) -> pd.DataFrame:
    """Assignment where replication i validates its training set's complement in fold 1."""
    rows = []
    for i, train in enumerate(training, start=1):
        for r in range(n):
            rows.append((r, i, 2 if r in train else 1))
    return pd.DataFrame(rows, columns=["record", "replication", "fold"])


# -- designed partitions --------------------------------------------------------
def test_block_regularized_table_has_zmax_zero() -> None:
    audit = audit_overlap(_table(BlockRegularizedCV(m=5, random_state=0).assignment(200)))
    assert isinstance(audit, OverlapAudit)
    assert audit.z_max == 0.0
    assert audit.design == "block-regularized"
    assert audit.verdict == "balanced"
    assert audit.pvalue == 1.0
    assert audit.pairs["overlap"].tolist() == [50] * 10
    assert audit.pairs["expected"].tolist() == [50.0] * 10
    assert audit.expected_overlap == 50.0


def test_balanced_5x2_is_told_from_block_regularized() -> None:
    audit = audit_overlap(_table(Balanced5x2CV(random_state=4).assignment(80)))
    assert (audit.z_max, audit.design, audit.verdict) == (0.0, "balanced", "balanced")
    # the same partitions with replications reordered are still an orthogonal array,
    # but no longer Wang, Li & Li (2017)'s Table 1 order
    shuffled = Balanced5x2CV(random_state=4).assignment(80)
    shuffled["replication"] = shuffled["replication"].map({1: 2, 2: 1, 3: 4, 4: 3, 5: 5})
    assert audit_overlap(_table(shuffled)).design == "block-regularized"


@pytest.mark.parametrize(("m", "n"), [(3, 100), (7, 96), (11, 120), (5, 300), (5, 301)])
def test_other_block_regularized_designs(m: int, n: int) -> None:
    cv = BlockRegularizedCV(m=m, random_state=1)
    audit = audit_overlap(_table(cv.assignment(n)))
    assert audit.design == "block-regularized"
    assert audit.verdict == "balanced"
    if n % 2 == 0:  # equal halves: Z is |X − n/4|, what the splitter reports
        assert audit.z_max == pytest.approx(cv.max_overlap_deviation(n))


def test_n_300_deviation_is_reported_not_hidden() -> None:
    audit = audit_overlap(_table(BlockRegularizedCV(m=5, random_state=0).assignment(300)))
    assert audit.z_max == 1.0
    assert sorted(set(audit.pairs["overlap"])) == [75, 76]


# -- random partitions, by hand -------------------------------------------------
def test_hand_computed_small_example() -> None:
    # n = 8, three replications; training sets (first splits) of 4 records each
    training = [{0, 1, 2, 3}, {0, 1, 2, 4}, {0, 5, 6, 7}]
    audit = audit_overlap(_table(_from_training_sets(8, training)))
    # overlaps: |S1∩S2| = 3, |S1∩S3| = 1, |S2∩S3| = 1; n/4 = 2, so every Z = 1
    assert audit.pairs["overlap"].tolist() == [3, 1, 1]
    assert audit.pairs["z"].tolist() == [1.0, 1.0, 1.0]
    # P(Z >= 1) for one pair: 1 − P(X = 2) = 1 − C(4,2)²/C(8,4) = 1 − 36/70
    p_pair = 1 - math.comb(4, 2) ** 2 / math.comb(8, 4)
    assert audit.pairs["pvalue"].tolist() == pytest.approx([p_pair] * 3)
    # P(Z_max >= 1) = 1 − (36/70)³ under independent pairs
    assert audit.pvalue == pytest.approx(1 - (36 / 70) ** 3)
    assert audit.z_max == 1.0
    assert audit.design == "random"
    assert audit.verdict == "typical"


def test_fold_labels_do_not_change_z() -> None:
    assignment = RandomMx2CV(m=4, random_state=5).assignment(60)
    base = audit_overlap(_table(assignment))
    relabelled = assignment.copy()
    swap = relabelled["replication"] == 2
    relabelled.loc[swap, "fold"] = 3 - relabelled.loc[swap, "fold"]
    again = audit_overlap(_table(relabelled))
    assert again.pairs["z"].tolist() == base.pairs["z"].tolist()
    assert again.pvalue == pytest.approx(base.pvalue)


def test_pvalue_is_the_independence_model() -> None:
    assignment = RandomMx2CV(m=5, random_state=2).assignment(200)
    audit = audit_overlap(_table(assignment))
    assert audit.pvalue == pytest.approx(zmax_tail(audit.z_max, 200, 5), rel=1e-12)
    dist = overlap_distribution(200)
    for row in audit.pairs.itertuples():
        assert row.pvalue == pytest.approx(dist.tail(row.z))
        assert row.z == abs(row.overlap - 50)
    assert audit.quantiles == (7, 8)  # Wang, Li & Li (2015) for n = 200, m = 5 (independence model)
    # E Z_max = Σ_k P(Z_max > k)
    assert audit.expected_zmax == pytest.approx(sum(zmax_tail(k, 200, 5) for k in range(1, 51)))


def test_poor_partitions_as_in_wang_li_li_2017_section_3() -> None:
    # Wang, Li & Li (2017) §3: replication 2 swaps only n/20 records of replication 1's halves,
    # so the two training sets share 9n/20 = 90 records (Z = 40 at n = 200)
    n = 200
    rng = np.random.default_rng(3)
    first = set(range(100))
    swapped_out = set(range(10))
    swapped_in = set(range(100, 110))
    second = (first - swapped_out) | swapped_in
    others = [set(rng.permutation(n)[:100].tolist()) for _ in range(3)]
    audit = audit_overlap(_table(_from_training_sets(n, [first, second, *others])))
    assert audit.pairs.loc[0, "overlap"] == 90
    assert audit.z_max == 40.0
    assert audit.verdict == "poor"
    assert audit.design == "random"
    assert audit.pvalue < 1e-20
    assert "0.070" in audit.meaning  # Wang, Li & Li (2015) Example 2, maximum overlap 90


def test_wang_li_li_2015_example_2_moderate_imbalance() -> None:
    # a largest overlap of 59 at n = 200 (Z = 9) for a 5×2 design
    n = 200
    base = set(range(100))
    second = (base - set(range(41))) | set(range(100, 141))  # 41 records swapped
    assert len(base & second) == 59
    rng = np.random.default_rng(11)
    others: list[set[int]] = []
    while len(others) < 3:  # random halves that keep Z_max = 9 from the designed pair
        cand = set(rng.permutation(n)[:100].tolist())
        if all(abs(len(cand & s) - 50) < 9 for s in [base, second, *others]):
            others.append(cand)
    audit = audit_overlap(_table(_from_training_sets(n, [base, second, *others])))
    assert audit.z_max == 9.0
    assert audit.pvalue == pytest.approx(zmax_tail(9, 200, 5))
    assert audit.pvalue == pytest.approx(0.1489, abs=1e-4)
    assert audit.verdict == "typical"
    stricter = audit_overlap(_table(_from_training_sets(n, [base, second, *others])), alpha=0.2)
    assert stricter.verdict == "poor"


# -- repeated K-fold (extension) ------------------------------------------------
def _kfold_assignment(n: int, m: int, K: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frames = [
        pd.DataFrame(
            {
                "record": np.arange(n),
                "replication": r + 1,
                "fold": rng.permutation(np.arange(n) % K) + 1,
            }
        )
        for r in range(m)
    ]
    return pd.concat(frames, ignore_index=True)


def test_repeated_kfold_extension() -> None:
    n, m, K = 200, 3, 5
    assignment = _kfold_assignment(n, m, K, seed=0)
    audit = audit_overlap(_table(assignment))
    assert audit.K == 5
    assert audit.expected_overlap == pytest.approx(n * (4 / 5) ** 2)
    assert any("Extension" in note for note in audit.notes)
    assert "extension" in audit.method
    # each pair's Z by hand: the largest |V_ab − n/K²| over the K×K table of fold counts
    wide = assignment.pivot(index="record", columns="replication", values="fold")
    for row in audit.pairs.itertuples():
        counts = pd.crosstab(wide[row.replication_a], wide[row.replication_b]).to_numpy()
        assert row.z == pytest.approx(np.abs(counts - n / K**2).max())
        # the reported overlap is of two training sets: n − 2n/K + V_ab
        assert row.overlap - row.expected == pytest.approx(
            counts.ravel()[np.abs(counts - n / K**2).argmax()] - n / K**2
        )
    assert 0.05 < audit.pvalue <= 1.0
    assert audit.verdict == "typical"


def test_repeated_kfold_identical_replications_are_poor() -> None:
    one = _kfold_assignment(100, 1, 4, seed=1)
    assignment = pd.concat([one, one.assign(replication=2)], ignore_index=True)
    audit = audit_overlap(_table(assignment))
    # identical folds: V_aa = 25 against an expected 100/16
    assert audit.z_max == pytest.approx(25 - 100 / 16)
    assert audit.verdict == "poor"
    assert audit.pvalue == 0.0


# -- errors and protocol ----------------------------------------------------------
def test_per_fold_scores_need_per_record_losses() -> None:
    df = pd.DataFrame(
        {
            "replication": np.repeat([1, 2], 4),
            "fold": np.tile([1, 1, 2, 2], 2),
            "model": ["a", "b"] * 4,
            "score": [0.9, 0.8, 0.85, 0.8, 0.9, 0.7, 0.8, 0.82],
        }
    )
    with pytest.raises(DesignError, match="per-record losses"):
        audit_overlap(ResultsTable.from_fold_scores(df))


def test_one_replication_or_holdout_is_refused() -> None:
    one = RandomMx2CV(m=1, random_state=0).assignment(20)
    with pytest.raises(DesignError, match="at least two"):
        audit_overlap(_table(one))
    holdout = one[one["fold"] == 1].assign(fold=1)
    holdout = pd.concat([holdout, holdout.assign(replication=2)], ignore_index=True)
    with pytest.raises(DesignError, match="2-fold or K-fold"):
        audit_overlap(_table(holdout))


def test_incomplete_replications_are_audited_on_common_records() -> None:
    assignment = RandomMx2CV(m=3, random_state=0).assignment(40)
    dropped = assignment[~((assignment["replication"] == 3) & (assignment["record"] < 4))]
    audit = audit_overlap(_table(dropped))
    assert audit.warnings and "missing" in audit.warnings[0]
    assert audit.pairs["n"].tolist() == [40, 36, 36]


def test_formula_and_data() -> None:
    assignment = BlockRegularizedCV(m=3, random_state=0).assignment(40)
    data = pd.concat([assignment.assign(model=m, loss=0.0) for m in ("A", "B")])
    audit = audit_overlap("loss ~ model | replication + fold", data=data)
    assert (audit.z_max, audit.design) == (0.0, "block-regularized")


def test_summary_protocol() -> None:
    audit = audit_overlap(_table(RandomMx2CV(m=5, random_state=0).assignment(200)))
    z, p = audit
    assert (z, p) == (audit.z_max, audit.pvalue)
    text = audit.summary().as_text()
    assert "Z_max" in text and "random" in text and audit.verdict in text
    assert f"{audit.z_max:.4f}" in text
    assert "<table" in audit._repr_html_()
    assert "|" in audit._repr_markdown_()
    assert "\\begin" in audit.summary().as_latex()
    frame = audit.to_frame()
    assert len(frame) == 1
    assert frame.loc[0, "z_max"] == audit.z_max
    assert frame.loc[0, "design"] == "random"
    assert repr(audit).startswith("OverlapAudit(design='random'")
    assert len(audit.pairs) == 10


# -- the bundled examples ---------------------------------------------------------
def _example(name: str) -> pd.DataFrame:
    from cvreport.data.examples import load_example

    return load_example(name)


def test_audit_of_the_random_example(capsys: pytest.CaptureFixture[str]) -> None:
    data = _example("random")
    audit = audit_overlap(ResultsTable(data))
    print(audit.summary().as_text())
    printed = capsys.readouterr().out
    assert format(audit.z_max, ".4f") in printed and "random" in printed
    # recompute one overlap from the file: records in fold 2 of replications 2 and 4
    fold2 = data[(data["fold"] == 2)].drop_duplicates(["replication", "record"])
    second = {r: set(fold2.loc[fold2["replication"] == r, "record"]) for r in range(1, 6)}
    n = data["record"].nunique()
    row = audit.pairs.set_index(["replication_a", "replication_b"]).loc[(2, 4)]
    assert row["overlap"] == len(second[2] & second[4])
    assert row["expected"] == pytest.approx(len(second[2]) * len(second[4]) / n)
    assert audit.z_max == pytest.approx(
        max(
            abs(len(second[i] & second[j]) - len(second[i]) * len(second[j]) / n)
            for i in range(1, 6)
            for j in range(i + 1, 6)
        )
    )
    assert audit.design == "random"
    assert audit.verdict in ("typical", "poor")


def test_audit_of_the_block_regularized_example() -> None:
    audit = audit_overlap(ResultsTable(_example("bcv")))
    assert audit.design == "block-regularized"
    assert audit.verdict == "balanced"
    assert audit.z_max < 1  # n = 569 is odd: overlaps are within a record of a·b/n
