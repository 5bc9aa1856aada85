"""An analysis is a value: run once by ``analyse``, rendered by ``Report``, read by the view."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport.data.design import DesignKind, design_kind
from cvreport.data.direction import Provenance
from cvreport.methods.registry import get_spec
from cvreport.reporting.analyse import Analysis, Plan, analyse
from cvreport.reporting.analysis import options_for
from cvreport.reporting.report import Report

analysis_module = importlib.import_module("cvreport.reporting.analysis")
PAIR = ("logistic_regression", "decision_tree")


@pytest.fixture(scope="module")
def table() -> cvreport.ResultsTable:
    return cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example()
    )


def test_the_analysis_is_frozen_and_the_report_renders_it_unchanged(table: Any) -> None:
    value = analyse(table, Plan(pairs=(PAIR,), tests="all"))
    assert isinstance(value, Analysis)
    with pytest.raises(dataclasses.FrozenInstanceError):
        value.alpha = 0.1  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        value.comparisons[0].disagreement = ""  # type: ignore[misc]
    direct = Report(table, pairs=[PAIR], tests="all")
    rendered = Report.from_analysis(value)
    assert rendered.analysis is value
    assert rendered.to_markdown() == direct.to_markdown()
    assert rendered.to_html() == direct.to_html()
    # the numbers are the tests' own, recomputed directly
    for outcome in value.outcomes:
        spec = get_spec(outcome.name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the report shows them; here only numbers matter
            again = spec.function(table, *PAIR, **options_for(spec, {}))
        assert outcome.result.pvalue == pytest.approx(again.pvalue, rel=1e-12)


def test_each_test_runs_once_per_pair_and_rendering_runs_none(
    table: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[str, str, str]] = []
    real = analysis_module.run_test

    def counting(spec: Any, table: Any, a: str, b: str, options: Any) -> Any:
        calls.append((spec.name, a, b))
        return real(spec, table, a, b, options)

    monkeypatch.setattr(analysis_module, "run_test", counting)
    pairs = [PAIR, ("logistic_regression", "naive_bayes")]
    report = Report(table, pairs=pairs, tests="all")
    ran = len(calls)
    assert ran == len(set(calls)) == len(pairs) * len(report.analysis.specs)
    report.to_markdown(), report.to_html(), report.to_latex()
    assert len(calls) == ran


def test_report_and_view_do_not_import_each_other() -> None:
    """The report imports the view, never the other way round, nor does the analysis import
    either (imports inside functions and under TYPE_CHECKING count)."""
    folder = Path(cvreport.__file__).parent / "reporting"

    def imported(name: str) -> set[str]:
        tree = ast.parse((folder / f"{name}.py").read_text(encoding="utf-8"))
        found: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
        return found

    assert not any(m.startswith("cvreport.reporting.report") for m in imported("view"))
    assert not any(m.startswith("cvreport.reporting.report") for m in imported("analyse"))
    assert not any(m.startswith("cvreport.reporting.view") for m in imported("analyse"))


def test_options_are_decided_from_the_spec() -> None:
    # a test with an alternative runs two-sided (the CV interval's own default is one-sided)
    assert options_for(get_spec("cv_confidence_interval"), {}) == {"alternative": "two-sided"}
    # an F test has no direction; the Bayesian test gets the default rope unless one is given
    assert options_for(get_spec("combined_ftest_5x2cv"), {}) == {}
    bayes = get_spec("bayesian_correlated_ttest")
    assert options_for(bayes, {})["rope"] == 0.01
    assert options_for(bayes, {bayes.name: {"rope": 0.05}})["rope"] == 0.05


def test_the_recommender_returns_specs_for_the_design_and_the_metric(table: Any) -> None:
    value = analyse(table, pairs=[PAIR])
    assert value.recommendation.tests == (get_spec("combined_ftest_5x2cv"),)
    assert [o.spec for o in value.outcomes] == list(value.recommendation.tests)


def test_a_design_kind_is_a_string_with_its_words() -> None:
    assert [design_kind(m, k) for m, k in ((1, 1), (3, 1), (1, 10), (5, 2), (3, 10))] == [
        "holdout",
        "repeated_holdout",
        "kfold",
        "mx2",
        "repeated_kfold",
    ]
    kind = design_kind(1, 10)
    assert kind is DesignKind.KFOLD and f"{kind}" == "kfold" and repr(kind) == "'kfold'"
    assert kind.words == "one run of K-fold cross-validation"
    assert "cv_confidence_interval" in kind.interval_hint


def _f1_table(**kwargs: Any) -> cvreport.ResultsTable:
    rng = np.random.default_rng(1)
    n = 150
    y = rng.integers(0, 2, n)
    frames = [
        pd.DataFrame(
            {
                "model": model,
                "record": np.arange(n),
                "fold": np.arange(n) % 5,
                "y": y,
                "yhat": np.where(rng.random(n) < right, y, 1 - y),
            }
        )
        for model, right in (("a", 0.85), ("b", 0.7))
    ]
    return cvreport.ResultsTable.from_predictions(
        pd.concat(frames, ignore_index=True),
        truth="y",
        prediction="yhat",
        metric="f1",
        replication=None,
        **kwargs,
    )


def test_the_positive_class_says_whether_it_was_given_or_inferred() -> None:
    inferred = analyse(_f1_table())
    assert inferred.facts.positive_class.value == "1"
    assert inferred.facts.positive_class.source is Provenance.LARGER_LABEL
    assert inferred.direction.source is Provenance.METRIC
    text = Report(inferred).to_markdown()
    assert "positive class `1` (inferred: the larger of the sorted class labels)" in text
    given = analyse(_f1_table(pos_label=0))
    assert given.facts.positive_class.source is Provenance.GIVEN
    assert "positive class `0` (as given)" in Report(given).to_markdown()


def test_the_confusion_metrics_are_scikit_learns() -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(4)
    n = 90
    y = rng.integers(0, 3, n)
    frames = [
        pd.DataFrame(
            {
                "model": model,
                "record": np.arange(n),
                "fold": np.arange(n) % 3,
                "y": y,
                "yhat": np.where(rng.random(n) < right, y, rng.integers(0, 3, n)),
            }
        )
        for model, right in (("a", 0.8), ("b", 0.5))
    ]
    frame = pd.concat(frames, ignore_index=True)
    table = cvreport.ResultsTable.from_formula("{yhat != y} ~ model | fold", frame)
    confusion = analyse(table).confusion
    assert confusion is not None
    for row in confusion["rows"]:
        group = frame[frame["model"] == row["model"]]
        truth, predicted = group["y"], group["yhat"]
        assert row["n"] == len(group)
        assert row["accuracy"] == pytest.approx(metrics.accuracy_score(truth, predicted))
        assert row["balanced_accuracy"] == pytest.approx(
            metrics.balanced_accuracy_score(truth, predicted)
        )
        for key, function in (
            ("precision", metrics.precision_score),
            ("recall", metrics.recall_score),
            ("f1", metrics.f1_score),
        ):
            expected = function(truth, predicted, average="macro", zero_division=0)
            assert row[key] == pytest.approx(expected), key
