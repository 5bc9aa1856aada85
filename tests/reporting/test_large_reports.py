"""Reports that stay readable at any size: the audit summarised, many models in an overview."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport.data.table import ResultsTable
from cvreport.partitions import audit_summary
from cvreport.partitions.audit import _measure_pairs, audit_overlap
from cvreport.partitions.overlap import overlap_distribution
from cvreport.reporting import overview
from cvreport.reporting.report import Report
from tests._fakes import pdflatex_or_skip, run_pdflatex


def replications(m: int, n: int = 40, seed: int = 0, missing: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frames = []
    for replication in range(1, m + 1):
        fold = np.where(rng.permutation(n) < n // 2, 1, 2)
        frame = pd.DataFrame({"replication": replication, "fold": fold, "record": range(n)})
        if missing:
            frame = frame.iloc[rng.random(n) > 0.1]
        frames.append(frame)
    design = pd.concat(frames, ignore_index=True)
    out = []
    for model, rate in (("A", 0.1), ("B", 0.3)):
        frame = design.copy()
        frame["model"] = model
        frame["loss"] = (rng.random(len(frame)) < rate).astype(int)
        out.append(frame)
    return pd.concat(out, ignore_index=True)


def models(k: int, n: int = 60, folds: int = 10, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    fold = rng.permutation(np.arange(n) % folds) + 1
    rates = np.linspace(0.05, 0.5, k)
    return pd.DataFrame(
        {
            "fold": np.tile(fold, k),
            "model": np.repeat([f"m{i:02d}" for i in range(k)], n),
            "record": np.tile(np.arange(n), k),
            "loss": (rng.random((k, n)) < rates[:, None]).ravel().astype(float),
        }
    )


# -- the audit -------------------------------------------------------------------------------
@pytest.mark.parametrize("missing", [False, True])
def test_matrix_product_counts_equal_counting_each_pair(missing: bool) -> None:
    table = ResultsTable(replications(7, missing=missing))
    _, membership = table.membership()
    membership = np.asarray(membership, dtype=np.int64)
    measured = _measure_pairs(membership, 2, np.ones(membership.shape[0], dtype=np.int64))
    patterns, counts = table.membership_patterns()
    weighted = _measure_pairs(np.asarray(patterns, dtype=np.int64), 2, np.asarray(counts))
    np.testing.assert_array_equal(weighted.n, measured.n)
    np.testing.assert_array_equal(weighted.overlap, measured.overlap)
    np.testing.assert_allclose(weighted.z, measured.z, rtol=0, atol=1e-12)
    for index, (i, j) in enumerate(itertools.combinations(range(7), 2)):
        both = (membership[:, i] >= 0) & (membership[:, j] >= 0)
        n = int(both.sum())
        a = int((membership[both, i] == 1).sum())
        b = int((membership[both, j] == 1).sum())
        x = int(((membership[both, i] == 1) & (membership[both, j] == 1)).sum())
        assert (measured.i[index], measured.j[index]) == (i, j)
        assert (measured.n[index], measured.overlap[index]) == (n, x)
        assert measured.z[index] == pytest.approx(abs(x - a * b / n))
        tail = float(overlap_distribution(n, (a, b)).tail(abs(x - a * b / n)))
        assert measured.tails(measured.z)[index] == pytest.approx(min(tail, 1.0))


def test_audit_of_many_replications_is_summarised_with_every_pair_kept() -> None:
    audit = audit_overlap(ResultsTable(replications(30)))
    pairs = audit.pairs
    assert len(pairs) == 435 and len(audit.pair_overlaps) == 435
    worst = audit_summary.worst_pairs(audit)
    assert len(worst) == 10
    assert worst["z"].iloc[0] == pairs["z"].max() == audit.z_max
    assert worst["z"].is_monotonic_decreasing
    assert worst["z"].iloc[-1] >= np.sort(pairs["z"].to_numpy())[-10]
    bins = audit_summary.histogram(audit)
    assert bins["pairs"].sum() == 435
    assert bins["share"].sum() == pytest.approx(1.0)
    counts, _ = np.histogram(pairs["z"], bins=10, range=(0, audit.z_max))
    assert bins["pairs"].tolist() == counts.tolist()
    report = Report(ResultsTable(replications(30)))
    html, markdown, latex = report.to_html(), report.to_markdown(), report.to_latex()
    assert "of 435" in html and "Z of all 435 pairs" in html
    rows = re.search(r'id="cvr-audit-pairs">.*?<tbody>(.*?)</tbody>', html, re.S)
    assert rows is not None and rows.group(1).count("<tr>") == 10
    assert "of 435" in markdown and "of 435" in latex


def test_a_m20_latex_report_fits_its_pages(tmp_path: Path) -> None:
    """m = 20 once gave a 190-row float running off the page (pdflatex only warned)."""
    exe = pdflatex_or_skip()
    run = run_pdflatex(exe, Report(ResultsTable(replications(20))).to_latex(), tmp_path, "r.tex")
    assert run.returncode == 0
    log = (tmp_path / "r.log").read_text(errors="replace")
    assert "Overfull \\vbox" not in log


# -- many models -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("frame", "formula", "test"),
    [
        (models(6), "loss ~ model | fold", "corrected_repeated_kfold_ttest"),
        (models(6), "loss ~ model | fold", "paired_ttest_kfold"),
    ],
)
def test_overview_numbers_equal_the_per_pair_tests(
    frame: pd.DataFrame, formula: str, test: str
) -> None:
    table = ResultsTable.from_formula(formula, frame)
    frame_ = overview.pair_overview(table, test, correction="holm")
    function = getattr(cvreport, test)
    for row in frame_.itertuples():
        result = function(table, row.a, row.b)
        assert row.statistic == pytest.approx(result.statistic, rel=1e-12)
        assert row.pvalue == pytest.approx(result.pvalue, rel=1e-12)
    from statsmodels.stats.multitest import multipletests

    expected = multipletests(frame_["pvalue"], method="holm")[1]
    np.testing.assert_allclose(frame_["adjusted"], expected)
    assert frame_["significant"].tolist() == (expected <= 0.05).tolist()


@pytest.mark.filterwarnings("ignore::cvreport.PartitionWarning")  # random partitions
@pytest.mark.parametrize("test", ["combined_ftest_5x2cv", "calibrated_ftest_5x2cv"])
def test_overview_of_mx2_tests_equals_the_per_pair_tests(test: str) -> None:
    base = replications(5)
    rng = np.random.default_rng(7)
    extra = base[base["model"] == "A"].assign(model="C")
    extra["loss"] = (rng.random(len(extra)) < 0.2).astype(int)
    frame = pd.concat([base, extra], ignore_index=True)
    table = ResultsTable(frame)
    frame_ = overview.pair_overview(table, test)
    for row in frame_.itertuples():
        result = getattr(cvreport, test)(table, row.a, row.b)
        assert row.pvalue == pytest.approx(result.pvalue, rel=1e-12)


def test_many_models_give_an_overview_and_details_for_the_best_model() -> None:
    table = ResultsTable.from_formula("loss ~ model | fold", models(12))
    report = Report(table)
    assert report.overview is not None and len(report.overview) == 66
    best = table.fold_errors().groupby("model")["loss"].mean().idxmin()
    assert [a for a, _ in report.pairs] == [best] * overview.DETAILED_PAIRS
    html = report.to_html()
    body = re.search(r'id="cvr-all-pairs-table">.*?<tbody>(.*?)</tbody>', html, re.S)
    assert body is not None and body.group(1).count("<tr>") == 66
    assert html.count('<details class="cvr-pair-details"') == overview.DETAILED_PAIRS
    markdown = report.to_markdown()
    assert "66 pairs of 12 models" in markdown
    # every pair of a small table is still detailed, with no overview
    small = Report(ResultsTable.from_formula("loss ~ model | fold", models(10)))
    assert small.overview is None and len(small.pairs) == 45


def test_overview_latex_compiles_as_longtable(tmp_path: Path) -> None:
    exe = pdflatex_or_skip()
    report = Report(ResultsTable.from_formula("loss ~ model | fold", models(40)))
    source = report.to_latex()
    assert "\\begin{longtable}" in source
    run = run_pdflatex(exe, source, tmp_path, "r.tex")
    assert run.returncode == 0
