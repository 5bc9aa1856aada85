"""Wording a reader meets in rendered reports: no code names, no "None", no claim that is false.

Each test renders a report as a user would and reads its sentences.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport.reporting.report import Report
from tests.reporting.test_reader_points import _predictions

pytest.importorskip("sklearn.datasets")


def quiet(*args: object, **kwargs: object) -> Report:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Report(*args, **kwargs)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def holdout_auc_markdown() -> str:
    table = cvreport.ResultsTable.from_formula("roc_auc(y, p) ~ model", _predictions(kfold=False))
    return quiet(table).to_markdown()


@pytest.fixture(scope="module")
def example_all_markdown() -> str:
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example("random")
    )
    return quiet(table, tests="all").to_markdown()


def _bullets(markdown: str) -> list[str]:
    return [line[2:] for line in markdown.splitlines() if line.startswith("- ")]


def test_a_holdout_predictions_source_names_only_the_columns_given(
    holdout_auc_markdown: str,
) -> None:
    source = next(line for line in holdout_auc_markdown.splitlines() if "| Source |" in line)
    assert "None" not in source
    assert "model 'model', record 'record'" in source


def test_a_holdout_auc_is_not_said_to_be_compared_fold_by_fold_nor_audited(
    holdout_auc_markdown: str,
) -> None:
    # one hold-out split: no folds to compare by, and no overlap audit is shown
    assert "## Overlap audit" not in holdout_auc_markdown
    assert "overlap audit runs" not in holdout_auc_markdown
    assert "compared fold by fold" not in holdout_auc_markdown
    assert "computed once on the hold-out set" in holdout_auc_markdown


def test_a_per_fold_auc_with_audited_partitions_still_says_the_audit_runs() -> None:
    table = cvreport.ResultsTable.from_formula(
        "roc_auc(y, p) ~ model | rep + fold", _predictions(kfold=True)
    )
    markdown = quiet(table).to_markdown()
    assert "## Overlap audit" in markdown
    assert "so the overlap audit runs" in markdown


def test_a_single_kfold_run_of_auc_does_not_claim_an_overlap_audit() -> None:
    predictions = _predictions(kfold=True)
    table = cvreport.ResultsTable.from_formula(
        "roc_auc(y, p) ~ model | fold", predictions[predictions["rep"] == 0]
    )
    markdown = quiet(table).to_markdown()
    assert "## Overlap audit" not in markdown
    assert "overlap audit runs" not in markdown
    assert "compared fold by fold" in markdown


def test_a_test_warning_is_not_prefixed_by_the_code_name_after_its_label(
    example_all_markdown: str,
) -> None:
    bullets = _bullets(example_all_markdown)
    calibrated = [b for b in bullets if b.startswith("Calibrated balanced 5×2cv F test: ")]
    assert any("partitions are not balanced" in b for b in calibrated)
    for code in ("calibrated\\_ftest\\_5x2cv", "mcnemar\\_5x2bcv", "blocked\\_ttest\\_3x2cv"):
        assert not any(re.match(rf"[^:]+: {re.escape(code)}:", b) for b in bullets), code


def test_every_caveat_bullet_ends_as_a_sentence(example_all_markdown: str) -> None:
    tail = example_all_markdown.split("**Caveats for these tests**", 1)[1]
    caveats = _bullets(tail.split("### ", 1)[0])
    assert caveats
    assert all(c.rstrip().endswith((".", "?", "!")) for c in caveats), [
        c for c in caveats if not c.rstrip().endswith((".", "?", "!"))
    ]


def test_the_sign_test_appears_under_all_on_a_kfold_table() -> None:
    rng = np.random.default_rng(0)
    rows = [
        {"fold": f, "record": r, "model": m, "loss": int(rng.random() < rate)}
        for f in range(10)
        for r in range(30 * f, 30 * f + 30)
        for m, rate in (("a", 0.2), ("b", 0.3))
    ]
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | fold", pd.DataFrame(rows), record="record"
    )
    markdown = quiet(table, tests="all").to_markdown()
    assert "| Sign test over K-fold differences" in markdown
    assert "- Sign test over K-fold differences: at α = 0.05" in markdown
    assert "Dixon, W. J., Mood, A. M. (1946)" in markdown


def test_a_datasets_formula_given_to_results_table_points_to_datasets_table() -> None:
    frame = cvreport.load_example("multi")
    with pytest.raises(cvreport.errors.FormulaError, match=r"DatasetsTable\.from_formula"):
        cvreport.ResultsTable.from_formula("loss ~ model | replication + fold | dataset", frame)
    multi = cvreport.DatasetsTable.from_formula(
        "loss ~ model | replication + fold | dataset", frame
    )
    assert len(multi.tables) == frame["dataset"].nunique() == 10
