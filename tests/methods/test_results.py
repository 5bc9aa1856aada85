"""The result protocol every test honours: unpacking, decisions, intervals, frames, summaries."""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport import arrays
from cvreport.errors import CVReportError, DegenerateStatisticWarning, IntervalUndefinedError
from cvreport.results import TestResult
from tests._printed import SECTION_1

VECTOR = np.reshape(SECTION_1, (5, 2))
BCV_TABLES = np.array([[[10, 12, 4, 74], [8, 9, 6, 77]]] * 5, dtype=float)


def all_results() -> dict[str, TestResult]:
    return {
        "paired_ttest_5x2cv": arrays.paired_ttest_5x2cv(VECTOR),
        "combined_ftest_5x2cv": arrays.combined_ftest_5x2cv(VECTOR),
        "calibrated_ftest_5x2cv": arrays.calibrated_ftest_5x2cv(VECTOR),
        "blocked_ttest_3x2cv": arrays.blocked_ttest_3x2cv(VECTOR[:3]),
        "combined_ttest_5x2cv": arrays.combined_ttest_5x2cv(VECTOR),
        "mcnemar": arrays.mcnemar(12, 4, n=200),
        "mcnemar_kfold": arrays.mcnemar_kfold([12, 7, 3], [4, 6, 1]),
        "mcnemar_5x2bcv": arrays.mcnemar_5x2bcv(BCV_TABLES),
        "paired_ttest_kfold": arrays.paired_ttest_kfold(VECTOR.ravel()),
        "binomial_test": arrays.binomial_test(15, 100, p0=0.1),
        "normal_test": arrays.normal_test(15, 100, p0=0.1),
        "ttest_error": arrays.ttest_error([0.12, 0.15, 0.11, 0.14, 0.13], p0=0.1),
    }


RESULTS = all_results()
WITH_INTERVAL = {
    "paired_ttest_5x2cv",
    "blocked_ttest_3x2cv",
    "combined_ttest_5x2cv",
    "paired_ttest_kfold",
    "binomial_test",
    "normal_test",
    "ttest_error",
}


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_protocol(name):
    res = RESULTS[name]
    assert isinstance(res, TestResult)
    assert res.test == name
    statistic, pvalue = res
    assert (statistic, pvalue) == (res.statistic, res.pvalue)
    assert len(res) == 2 and res[0] == res.statistic and res[1] == res.pvalue
    assert 0.0 <= res.pvalue <= 1.0
    assert res.method and res.reference and res.design and res.distribution
    assert res.reject(0.05) == (res.pvalue <= 0.05)
    assert res.reject(0.999) is True
    with pytest.raises(CVReportError):
        res.reject(1.5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.statistic = 0.0  # type: ignore[misc]
    assert "\n" not in repr(res) and name in repr(res)
    assert res.to_dict()["statistic"] == res.statistic


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_conf_int_defined_or_explained(name):
    res = RESULTS[name]
    if name in WITH_INTERVAL:
        low, high = res.conf_int(0.05)
        assert low < high
        assert res.has_conf_int
        if res.alternative == "two-sided":
            narrow = res.conf_int(0.5)
            assert low < narrow[0] < narrow[1] < high
    else:
        with pytest.raises(IntervalUndefinedError, match="defines no confidence interval"):
            res.conf_int()
        assert not res.has_conf_int


def test_interval_contains_estimate_for_symmetric_t_tests():
    for name in ("blocked_ttest_3x2cv", "combined_ttest_5x2cv", "paired_ttest_kfold"):
        res = RESULTS[name]
        low, high = res.conf_int()
        assert low < res.estimate < high
        assert (high + low) / 2 == pytest.approx(res.estimate)
    # Dietterich's interval is centred on the first split difference, not the mean
    d = RESULTS["paired_ttest_5x2cv"]
    assert sum(d.conf_int()) / 2 == pytest.approx(VECTOR[0, 0])


def test_interval_and_test_agree():
    # a two-sided t interval at level 1 − α excludes 0 exactly when the test rejects at α
    for name in ("paired_ttest_5x2cv", "combined_ttest_5x2cv", "paired_ttest_kfold"):
        res = RESULTS[name]
        for alpha in (0.05, 0.2, 0.4, 0.6):
            low, high = res.conf_int(alpha)
            assert (not low <= 0 <= high) == res.reject(alpha)


def test_to_frame_concatenates():
    frames = [res.to_frame() for res in RESULTS.values()]
    table = pd.concat(frames, ignore_index=True)
    assert len(table) == len(RESULTS)
    assert list(table["test"]) == list(RESULTS)
    row = table.set_index("test")
    assert (
        row.loc["combined_ftest_5x2cv", "df"] == 10 and row.loc["combined_ftest_5x2cv", "df2"] == 5
    )
    assert math.isnan(row.loc["combined_ftest_5x2cv", "ci_low"])
    assert row.loc["paired_ttest_kfold", "ci_low"] < row.loc["paired_ttest_kfold", "ci_high"]
    assert row.loc["mcnemar", "statistic"] == 3.0625


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_summary_renders_everywhere(name):
    res = RESULTS[name]
    summary = res.summary()
    text = summary.as_text()
    assert res.method in text
    assert cvreport.rendering.formatting.format_number(res.statistic) in text
    assert cvreport.rendering.formatting.format_pvalue(res.pvalue) in text
    markdown = summary.as_markdown()
    assert cvreport.rendering.formatting.format_pvalue(res.pvalue) in markdown
    html = res._repr_html_()
    assert "<" in html and cvreport.rendering.formatting.format_number(res.statistic) in html
    assert res._repr_markdown_() == markdown
    latex = summary.as_latex()
    assert cvreport.rendering.formatting.format_number(res.statistic) in latex
    assert str(res) == text


def test_dietterich_summary_lists_all_numerators():
    text = RESULTS["paired_ttest_5x2cv"].summary().as_text()
    assert "0 of 10" in text
    assert text.count("0.4767") == 3  # numerators ±0.01 (three of them): 0.01 / 0.020976
    assert "All 2m statistics" in text


def test_bcv_summary_shows_tables_and_posteriors():
    res = RESULTS["mcnemar_5x2bcv"]
    text = res.summary().as_text()
    assert "effective" in text and "n_e" in text
    assert "Beta posteriors" in text
    assert cvreport.rendering.formatting.format_number(res.posterior("r").prob_above_half) in text
    html = res.summary().as_html()
    assert "q_a" in html


def test_degenerate_result_explains_itself_in_summary():
    with pytest.warns(DegenerateStatisticWarning):
        res = arrays.combined_ftest_5x2cv(np.zeros((5, 2)))
    assert res.degenerate
    text = res.summary().as_text()
    assert "never differ" in text
    assert res.to_frame()["warnings"].iloc[0].startswith("the variance sum")
    assert not RESULTS["combined_ftest_5x2cv"].degenerate


def test_notes_are_rendered():
    res = RESULTS["mcnemar_kfold"]
    assert "not recommended" in res.summary().as_text()
    yildiz = RESULTS["combined_ttest_5x2cv"]
    assert "anti-conservative" in yildiz.summary().as_markdown()


def test_one_model_summary_names_the_target():
    res = RESULTS["binomial_test"]
    text = res.summary().as_text()
    assert "target p0" in text and "0.1000" in text
    assert "A − B" not in text


def test_top_level_exports():
    for name in RESULTS:
        assert callable(getattr(cvreport, name))
    assert cvreport.paired_ttest_5x2cv is cvreport.methods.paired_ttest_5x2cv


def test_no_runtime_warnings_anywhere():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        all_results()
