"""Designed m×2 partitions as scikit-learn splitters (docs/methods.md)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cvreport.errors import CVReportError, DataError
from cvreport.partitions.splits import (
    BALANCED_SIGNS,
    Balanced5x2CV,
    BlockRegularizedCV,
    RandomMx2CV,
    block_regularized_signs,
    hadamard_matrix,
)

TABLE_III = [{1, 2, 3, 4}, {1, 3, 5, 7}, {1, 2, 5, 6}, {1, 4, 5, 8}, {1, 3, 6, 8}]


def _training_sets(signs: np.ndarray) -> list[set[int]]:
    return [set((np.flatnonzero(signs[:, j] > 0) + 1).tolist()) for j in range(signs.shape[1])]


def test_block_regularized_5x2_is_yang_et_al_table_iii() -> None:
    assert _training_sets(block_regularized_signs(5)) == TABLE_III


def test_blocked_3x2_pairs_the_four_blocks() -> None:
    # P1P2|P3P4, P1P3|P2P4, P1P4|P2P3 (Wang et al. 2014, docs/methods.md)
    assert _training_sets(block_regularized_signs(3)) == [{1, 2}, {1, 3}, {1, 4}]


def test_balanced_5x2_is_wang_li_li_2017_table_1() -> None:
    # half blocks numbered P1¹=1, P1²=2, P2¹=3, P2²=4, P3¹=5, P3²=6, P4¹=7, P4²=8
    expected = [{1, 2, 3, 4}, {1, 2, 5, 6}, {1, 2, 7, 8}, {3, 2, 7, 6}, {3, 2, 5, 8}]
    assert _training_sets(BALANCED_SIGNS) == expected


@pytest.mark.parametrize("order", [4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 56, 60, 64])
def test_hadamard_matrices(order: int) -> None:
    h = hadamard_matrix(order)
    assert np.array_equal(h @ h.T, order * np.eye(order, dtype=int))
    assert np.all(h[:, 0] == 1)


def test_no_hadamard_construction_for_52() -> None:
    with pytest.raises(CVReportError, match="52"):
        hadamard_matrix(52)


@pytest.mark.parametrize("m", [*range(1, 25), 48, 50])
def test_orthogonal_array_columns(m: int) -> None:
    signs = block_regularized_signs(m)
    n_blocks = signs.shape[0]
    assert signs.shape[1] == m
    assert n_blocks % 4 == 0 and n_blocks > m
    assert np.all(signs.sum(axis=0) == 0)  # every fold is half of the blocks
    gram = signs.T @ signs
    assert np.array_equal(gram, n_blocks * np.eye(m, dtype=int))  # pairs share N/4 blocks
    if m < 48:
        assert n_blocks == 4 * (m // 4 + 1)
    else:  # no order-52 construction: the next one
        assert n_blocks == 56


def _check_exact_design(cv: BlockRegularizedCV | Balanced5x2CV, sizes: range) -> None:
    m = cv.n_replications
    iu = np.triu_indices(m, 1)
    for n in sizes:
        train = (cv.folds(n) == 1).astype(np.int64)  # training set of each first split
        assert np.all(train.sum(axis=0) == n // 2), n  # both folds have n/2 records
        assert np.all((train.T @ train)[iu] == n // 4), n  # every pair shares n/4
        assert cv.max_overlap_deviation(n) == 0.0


def test_balanced_and_block_regularized_5x2_are_exact_for_every_n_divisible_by_8() -> None:
    _check_exact_design(Balanced5x2CV(random_state=0), range(8, 1025, 8))
    _check_exact_design(BlockRegularizedCV(m=5, random_state=0), range(8, 1025, 8))


def test_blocked_3x2_is_exact_for_every_n_divisible_by_4() -> None:
    _check_exact_design(BlockRegularizedCV(m=3, random_state=0), range(4, 1025, 4))


@pytest.mark.parametrize("m", [7, 11, 15])
def test_larger_block_regularized_designs_are_exact(m: int) -> None:
    cv = BlockRegularizedCV(m=m, random_state=1)
    _check_exact_design(cv, range(cv.n_blocks, 20 * cv.n_blocks + 1, cv.n_blocks))


def test_splits_come_in_replication_then_fold_order() -> None:
    cv = BlockRegularizedCV(m=5, random_state=3)
    n = 40
    splits = list(cv.split(np.zeros((n, 2))))
    folds = cv.folds(n)
    assert len(splits) == cv.get_n_splits() == 10
    for i, (train, test) in enumerate(splits):
        rep, k = divmod(i, 2)
        assert np.array_equal(np.sort(np.concatenate([train, test])), np.arange(n))
        assert np.array_equal(test, np.flatnonzero(folds[:, rep] == k))
        assert train.dtype.kind == "i"
    # the two splits of a replication swap training and validation sets
    assert np.array_equal(splits[0][0], splits[1][1])


def test_assignment_table_matches_split() -> None:
    cv = Balanced5x2CV(random_state=11)
    X = pd.DataFrame({"x": range(24)}, index=[f"r{i}" for i in range(24)])
    table = cv.assignment(X)
    assert list(table.columns) == ["record", "replication", "fold"]
    assert len(table) == 24 * 5
    assert sorted(table["replication"].unique()) == [1, 2, 3, 4, 5]
    assert sorted(table["fold"].unique()) == [1, 2]
    for i, (_, test) in enumerate(cv.split(X)):
        rep, fold = i // 2 + 1, i % 2 + 1
        got = table.loc[(table["replication"] == rep) & (table["fold"] == fold), "record"]
        assert set(got) == set(X.index[test])
    # every record appears once per replication
    assert table.groupby("replication")["record"].nunique().eq(24).all()


def test_assignment_with_a_number_and_duplicate_index() -> None:
    cv = RandomMx2CV(m=2, random_state=0)
    assert cv.assignment(6)["record"].tolist()[:3] != ["r0"]
    dup = pd.DataFrame({"x": range(4)}, index=[0, 0, 1, 1])
    assert sorted(cv.assignment(dup)["record"].unique().tolist()) == [0, 1, 2, 3]


def test_deterministic_under_random_state() -> None:
    for make in (
        lambda s: RandomMx2CV(m=5, random_state=s),
        lambda s: Balanced5x2CV(random_state=s),
        lambda s: BlockRegularizedCV(m=5, random_state=s),
    ):
        a = [t.tolist() for _, t in make(5).split(range(50))]
        b = [t.tolist() for _, t in make(5).split(range(50))]
        c = [t.tolist() for _, t in make(6).split(range(50))]
        assert a == b
        assert a != c
    gen_cv = RandomMx2CV(m=2, random_state=np.random.default_rng(0))
    assert [t.tolist() for _, t in gen_cv.split(range(20))] != [
        t.tolist() for _, t in gen_cv.split(range(20))
    ]
    rs_cv = RandomMx2CV(m=2, random_state=np.random.RandomState(0))
    assert len(list(rs_cv.split(range(20)))) == 4


def test_records_are_shuffled_before_dealing() -> None:
    # unshuffled blocks would put records 0..n/8-1 in one block (docs/methods.md)
    cv = BlockRegularizedCV(m=5, random_state=0)
    blocks = cv.blocks(80)
    assert not np.array_equal(blocks, np.repeat(np.arange(8), 10))
    assert len(set(blocks[:10].tolist())) > 1
    assert np.all(np.bincount(blocks) == 10)


@pytest.mark.parametrize("n", [9, 10, 11, 12, 13, 14, 15, 100, 101, 299, 300, 301, 302, 303])
def test_remainders_are_dealt_round_robin(n: int) -> None:
    cv = BlockRegularizedCV(m=5, random_state=2)
    counts = np.bincount(cv.blocks(n), minlength=8)
    assert counts.max() - counts.min() <= 1
    folds = cv.folds(n)
    # folds keep within one record of half
    assert np.all(np.abs(folds.sum(axis=0) - n / 2) <= 1)
    # achieved deviation is what the overlaps say, and small
    train = (folds == 1).astype(int)
    ov = (train.T @ train)[np.triu_indices(5, 1)]
    assert cv.max_overlap_deviation(n) == pytest.approx(np.abs(ov - n / 4).max())
    assert cv.max_overlap_deviation(n) <= 1.25


def test_n_300_has_the_best_equal_block_deviation() -> None:
    # n ≡ 4 (mod 8): equal blocks cannot do better than n/4 ± 1 (docs/methods.md)
    assert BlockRegularizedCV(m=5, random_state=0).max_overlap_deviation(300) == 1.0
    assert Balanced5x2CV(random_state=0).max_overlap_deviation(300) == 1.0


def test_random_mx2_overlaps_vary() -> None:
    cv = RandomMx2CV(m=5, random_state=0)
    folds = cv.folds(200)
    assert np.all(folds.sum(axis=0) == 100)
    assert cv.max_overlap_deviation(200) > 0


def _class_share_error(cv: object, y: np.ndarray) -> float:
    """Largest distance, in records, between a class's count in a fold and half the class."""
    worst = 0.0
    for _, test in cv.split(np.zeros(len(y)), y):  # type: ignore[attr-defined]
        for c in np.unique(y):
            worst = max(worst, abs(np.sum(y[test] == c) - np.sum(y == c) / 2))
    return worst


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(min_value=1, max_value=60), min_size=2, max_size=5),
    st.integers(min_value=0, max_value=10_000),
    st.sampled_from(["random", "balanced", "bcv3", "bcv5"]),
)
def test_stratified_folds_keep_class_shares_within_one_record(
    class_sizes: list[int], seed: int, design: str
) -> None:
    y = np.repeat(np.arange(len(class_sizes)), class_sizes)
    make = {
        "random": lambda: RandomMx2CV(m=5, stratify=True, random_state=seed),
        "balanced": lambda: Balanced5x2CV(stratify=True, random_state=seed),
        "bcv3": lambda: BlockRegularizedCV(m=3, stratify=True, random_state=seed),
        "bcv5": lambda: BlockRegularizedCV(m=5, stratify=True, random_state=seed),
    }[design]
    assert _class_share_error(make(), y) <= 1.0 + 1e-9


def test_stratified_keeps_the_exact_design_when_classes_divide() -> None:
    y = np.repeat([0, 1, 2], [40, 24, 16])
    cv = BlockRegularizedCV(m=5, stratify=True, random_state=0)
    assert cv.max_overlap_deviation(80, y) == 0.0
    assert _class_share_error(cv, y) == 0.0


def test_unstratified_can_unbalance_classes() -> None:
    # the test above can fail: without stratification class shares drift
    y = np.repeat([0, 1], [40, 40])
    assert _class_share_error(BlockRegularizedCV(m=5, random_state=0), y) > 1


def test_stratify_needs_y() -> None:
    with pytest.raises(DataError, match="needs the class labels"):
        list(RandomMx2CV(stratify=True).split(range(10)))
    with pytest.raises(DataError, match="one label per record"):
        list(Balanced5x2CV(stratify=True).split(range(10), [0, 1]))


def test_bad_parameters() -> None:
    with pytest.raises(CVReportError, match="m must be"):
        BlockRegularizedCV(m=0)
    with pytest.raises(CVReportError, match="m must be"):
        RandomMx2CV(m=2.5)  # type: ignore[arg-type]
    with pytest.raises(DataError, match="at least 2"):
        RandomMx2CV().folds(1)
    with pytest.raises(DataError, match="at least 2"):
        list(BlockRegularizedCV().split(np.zeros((1, 3))))
    with pytest.raises(DataError, match="how many records"):
        RandomMx2CV().folds(object())


def test_repr() -> None:
    assert repr(BlockRegularizedCV(m=3, random_state=1)) == (
        "BlockRegularizedCV(m=3, stratify=False, random_state=1)"
    )
    assert repr(Balanced5x2CV()) == "Balanced5x2CV(stratify=False, random_state=None)"


def test_importing_splits_does_not_import_sklearn() -> None:
    code = "import sys, cvreport.partitions.splits, cvreport.partitions.overlap; print('sklearn' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize(
    "cv",
    [
        RandomMx2CV(m=5, random_state=0),
        Balanced5x2CV(random_state=0),
        BlockRegularizedCV(m=5, random_state=0),
        BlockRegularizedCV(m=3, stratify=True, random_state=0),
    ],
    ids=repr,
)
def test_scikit_learn_compatibility(cv: object) -> None:
    sklearn_model_selection = pytest.importorskip("sklearn.model_selection")
    from sklearn.datasets import load_breast_cancer
    from sklearn.naive_bayes import GaussianNB

    X, y = load_breast_cancer(return_X_y=True)
    checked = sklearn_model_selection.check_cv(cv, y, classifier=True)
    assert checked is cv
    model = GaussianNB()
    scores = sklearn_model_selection.cross_val_score(model, X, y, cv=cv)
    assert len(scores) == cv.get_n_splits()  # type: ignore[attr-defined]
    assert np.all((scores > 0.85) & (scores <= 1.0))
    # the same splits reach scikit-learn as split() yields
    folds = [test for _, test in cv.split(X, y)]  # type: ignore[attr-defined]
    via = sklearn_model_selection.cross_validate(model, X, y, cv=cv, return_indices=True)[
        "indices"
    ]["test"]
    assert all(np.array_equal(a, b) for a, b in zip(folds, via))
