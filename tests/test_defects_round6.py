"""Regression tests for defects of the public API found by reading it as a user (round 6)."""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import cvreport
from cvreport import arrays
from cvreport.cli.main import main
from cvreport.errors import ArgumentError, CVReportError, DataError, DegenerateStatisticWarning
from cvreport.methods.arguments import public_function
from cvreport.methods.registry import SPECS
from cvreport.multi.effect_sizes import cliffs_delta, pairwise_effect_sizes


# -- 1. an error rate is a whole number of errors out of n ---------------------------------------
@pytest.mark.parametrize(
    ("error_a", "error_b", "name", "product"),
    [(0.123, 0.2, "error_a", "12.3"), (0.12, 0.2051, "error_b", "20.51")],
)
def test_proportion_test_refuses_a_rate_that_is_no_count_over_n(error_a, error_b, name, product):
    with pytest.raises(DataError) as caught:
        arrays.proportion_test(error_a, error_b, 100)
    message = str(caught.value)
    assert f"{name} = " in message and "n = 100" in message and product in message
    assert "divided by n" in message


def test_proportion_test_takes_rates_with_floating_rounding():
    # 0.07 · 100 = 7.000000000000001 and 0.29 · 100 = 28.999999999999996 in floating point
    assert 0.07 * 100 != 7 and 0.29 * 100 != 29
    res = arrays.proportion_test(0.07, 0.29, 100)
    pooled = (7 + 29) / 200
    z = (0.07 - 0.29) / math.sqrt(2 * pooled * (1 - pooled) / 100)
    assert res.statistic == pytest.approx(z, rel=1e-12)
    assert res.pvalue == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-12)


# -- 5. Cliff's δ compares values exactly, as its peers do ---------------------------------------
def test_cliffs_delta_compares_exactly_like_mann_whitney_and_documents_it():
    a = [1.0, 0.8, 0.7, 0.9]
    b = [0.9999999999999999, 0.8, 0.6, 0.95]
    u = stats.mannwhitneyu(a, b).statistic  # scipy counts ties as ½ and compares exactly
    assert cliffs_delta(a, b)[0] == pytest.approx(2 * u / 16 - 1, abs=1e-15)
    assert stats.rankdata([1.0, 0.9999999999999999]).tolist() == [2.0, 1.0]
    for function in (cliffs_delta, pairwise_effect_sizes):
        text = " ".join(function.__doc__.split())
        assert "compared exactly" in text or "compares the scores exactly" in text
        assert "round" in text and "near-equal values as ties" in text


# -- 4. a one-model test speaks of the model's error against p0 ----------------------------------
def _one_model_frame(errors_per_fold: int) -> pd.DataFrame:
    rows = [
        {"replication": 0, "fold": fold, "model": model, "record": 10 * fold + r, "loss": loss}
        for fold in range(5)
        for r in range(10)
        for model, loss in (("A", int(r < errors_per_fold)), ("B", int(r < 3)))
    ]
    return pd.DataFrame(rows)


def _assert_speaks_of_one_model(text: str) -> None:
    flat = " ".join(text.split())
    assert "p0" in flat and "model's" in flat
    for word in ("models", "difference", "the models never differ"):
        assert word not in flat, word


@pytest.mark.parametrize(("p0", "statistic", "pvalue"), [(0.2, 0.0, 1.0), (0.1, math.inf, 0.0)])
def test_ttest_error_with_equal_fold_errors_speaks_of_the_one_model(p0, statistic, pvalue):
    with pytest.warns(DegenerateStatisticWarning) as caught:
        res = arrays.ttest_error([0.2] * 5, p0=p0)
    (warning,) = [w for w in caught if w.category is DegenerateStatisticWarning]
    _assert_speaks_of_one_model(str(warning.message))
    _assert_speaks_of_one_model(res.summary().as_text())
    assert (res.statistic, res.pvalue, res.estimate) == (statistic, pvalue, 0.2)
    with pytest.warns(DegenerateStatisticWarning) as caught:
        table_res = cvreport.ttest_error(
            "loss ~ model | replication + fold", model="A", data=_one_model_frame(2), p0=p0
        )
    _assert_speaks_of_one_model(table_res.summary().as_text())
    assert table_res.warnings == res.warnings
    assert (table_res.statistic, table_res.pvalue) == (statistic, pvalue)


def test_count_tests_of_one_model_say_nothing_of_two_models():
    # binomial and normal tests of 10 errors in 50 records: no degenerate case, no pair words
    for name in ("binomial_test", "normal_test"):
        res = getattr(cvreport, name)(
            "loss ~ model | replication + fold", model="A", data=_one_model_frame(2), p0=0.2
        )
        flat = " ".join(res.summary().as_text().split())
        assert "models" not in flat and "difference" not in flat
        for errors in (0, 100):  # the edges: no error at all, every record wrong
            edge = getattr(arrays, name)(errors, 100, 0.1)
            flat = " ".join(edge.summary().as_text().split())
            assert "models" not in flat and "difference" not in flat
    assert cvreport.binomial_test(
        "loss ~ model | replication + fold", model="A", data=_one_model_frame(2), p0=0.2
    ).pvalue == pytest.approx(stats.binomtest(10, 50, 0.2, alternative="greater").pvalue)


# -- 3. a probability metric refuses True/False scores on every route -----------------------------
def _predictions_frame() -> pd.DataFrame:
    rng = np.random.default_rng(6)
    rows = []
    for fold in range(4):
        for r in range(25):
            truth = int(rng.random() < 0.5)
            for model, noise in (("A", 0.25), ("B", 0.4)):
                p = float(np.clip(0.2 + 0.6 * truth + rng.normal(0, noise), 0.01, 0.99))
                rows.append(
                    {
                        "replication": 0,
                        "fold": fold,
                        "model": model,
                        "record": 25 * fold + r,
                        "truth": truth,
                        "p": p,
                        "hard": p > 0.5,
                    }
                )
    return pd.DataFrame(rows)


ROLES = {"truth": "truth", "model": "model", "replication": "replication", "fold": "fold"}


def _sources(frame: pd.DataFrame) -> dict[str, object]:
    polars = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    connection = duckdb.connect()
    connection.register("predictions", frame)
    return {
        "pandas": frame,
        "polars": polars.from_pandas(frame),
        "duckdb": connection.sql("select * from predictions"),
    }


def _refuses_booleans(message: str, metric: str) -> None:
    flat = " ".join(message.split())
    assert f"{metric} reads probabilities" in flat and "'hard'" in flat
    assert "True/False" in flat and "probabilities 0 and 1" in flat
    assert "predict_proba" in flat and "'accuracy'" in flat and "zero_one_loss" in flat


@pytest.mark.parametrize("metric", ["log_loss", "brier_score_loss"])
def test_a_probability_metric_refuses_boolean_scores_on_every_engine(metric):
    for name, source in _sources(_predictions_frame()).items():
        with pytest.raises(DataError) as caught:
            cvreport.ResultsTable.from_predictions(
                source, metric=metric, score="hard", record="record", **ROLES
            )
        _refuses_booleans(str(caught.value), metric)
        # the same column as probabilities 0.0/1.0 is read: the refusal is about the dtype
        floats = _predictions_frame().assign(hard=lambda f: f["hard"].astype(float))
        table = cvreport.ResultsTable.from_predictions(
            floats, metric=metric, score="hard", record="record", **ROLES
        )
        assert table.models == ("A", "B"), name


def test_a_probability_metric_refuses_boolean_scores_in_the_cli_and_the_arrays(tmp_path, capsys):
    frame = _predictions_frame()
    path = tmp_path / "predictions.csv"
    frame.to_csv(path, index=False)
    argv = [
        "report", str(path), "-f", "truth ~ model | replication + fold", "--metric", "log_loss",
        "--score", "hard", "-o", str(tmp_path / "out.md"), "--format", "md",
    ]  # fmt: skip
    assert main(argv) not in (0, None)
    _refuses_booleans(capsys.readouterr().err, "log_loss")
    assert not (tmp_path / "out.md").exists()
    one = frame[frame["model"] == "A"]
    other = frame[frame["model"] == "B"]
    with pytest.raises(DataError, match="True/False values"):
        arrays.paired_bootstrap_test(
            one["truth"], one["hard"].to_numpy(), other["p"], metric="log_loss",
            n_resamples=99, random_state=0,
        )  # fmt: skip


def test_auc_of_boolean_scores_is_the_same_on_every_engine_and_as_scikit_learn():
    metrics = pytest.importorskip("sklearn.metrics")
    frame = _predictions_frame()
    expected = []
    for _, fold in frame.groupby("fold"):
        auc = {
            model: metrics.roc_auc_score(rows["truth"], rows["hard"])
            for model, rows in fold.groupby("model")
        }
        expected.append(auc["A"] - auc["B"])
    for name, source in _sources(frame).items():
        table = cvreport.ResultsTable.from_predictions(
            source, metric="roc_auc", score="hard", record="record", **ROLES
        )
        got = table.differences("A", "B").to_numpy().ravel()
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12, err_msg=name)


# -- 2. an unknown keyword names the function as called, in one typed error ----------------------
def _raw(function):
    """The function as its family module defines it, before the public wrapper (which
    takes its name in the module, so that it pickles as itself)."""
    raw = function.__wrapped__
    assert raw is not function and not hasattr(raw, "__public_name__")
    assert getattr(importlib.import_module(function.__module__), function.__name__) is function
    return raw


def _public_functions():
    for spec in SPECS:
        yield pytest.param(spec.function, f"cvreport.{spec.name}", id=spec.name)
        if spec.array_function is not None:
            yield pytest.param(
                spec.array_function, f"cvreport.arrays.{spec.name}", id=f"arrays.{spec.name}"
            )


@pytest.mark.parametrize(("function", "called"), list(_public_functions()))
def test_an_unknown_keyword_names_the_function_as_called(function, called):
    assert function is functools.reduce(getattr, called.split(".")[1:], cvreport)
    with pytest.raises(ArgumentError) as caught:
        function("loss ~ model", alpha=0.05)
    error = caught.value
    assert isinstance(error, TypeError) and isinstance(error, CVReportError)
    message = str(error)
    assert message.startswith(f"{called}() has no option 'alpha'")
    assert "_array" not in message
    parameters = inspect.signature(function).parameters
    takes_options = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    listed = [p for p in parameters if p != "options"] if not takes_options else []
    assert all(name in message for name in listed)
    if "confidence_level" in message:  # the bootstrap takes a level, as 1 − alpha
        assert "did you mean confidence_level (= 1 − alpha)" in message
    else:
        assert "summary(alpha=...)" in message and "conf_int(alpha)" in message
        assert "Report(..., alpha=...)" in message
    assert inspect.signature(function) == inspect.signature(_raw(function))
    assert function.__doc__ == _raw(function).__doc__


def test_the_examples_of_the_defect_and_positional_surplus():
    with pytest.raises(TypeError, match=r"^cvreport\.arrays\.mcnemar\(\) has no option 'alpha'"):
        arrays.mcnemar(3, 4, alpha=0.1)
    with pytest.raises(ArgumentError) as caught:
        arrays.mcnemar(3, 4, "exact", 10)
    assert str(caught.value) == (
        "cvreport.arrays.mcnemar() takes at most 3 positional arguments (b, c, method), got 4; "
        "pass the others by keyword: n=..."
    )
    with pytest.raises(ArgumentError, match=r"cvreport\.sign_test\(\) takes at most 3 positional"):
        cvreport.sign_test("loss ~ model", "A", "B", "less")
    with pytest.raises(ArgumentError, match=r"did you mean alternative\?"):
        arrays.sign_test([0.1, 0.2, 0.3], alternatve="less")
    with pytest.raises(ArgumentError, match=r"^cvreport\.arrays\.mcnemar\(\) missing 1 required"):
        arrays.mcnemar(3)
    # a call the function takes runs as before
    assert arrays.mcnemar(12, 4).pvalue == pytest.approx(stats.chi2.sf(7**2 / 16, 1), rel=1e-12)


def test_a_spec_built_again_from_the_same_functions_is_equal():
    for spec in SPECS:
        again = dataclasses.replace(spec, function=_raw(spec.function))
        assert again == spec and again.function is spec.function
        assert public_function(spec.function, "anything") is spec.function


def test_the_public_functions_still_pickle_as_themselves():
    for spec in SPECS:
        for function in (spec.function, spec.array_function):
            if function is not None:
                assert pickle.loads(pickle.dumps(function)) is function


def test_a_warning_of_a_wrapped_test_points_at_the_users_call():
    with pytest.warns(DegenerateStatisticWarning) as caught:
        arrays.mcnemar(0, 0)
    assert {w.filename for w in caught} == {__file__}
    with pytest.warns(DegenerateStatisticWarning) as caught:
        cvreport.ttest_error(
            "loss ~ model | replication + fold", model="A", data=_one_model_frame(2), p0=0.2
        )
    assert {w.filename for w in caught if w.category is DegenerateStatisticWarning} == {__file__}


@pytest.mark.parametrize("metric", ["log_loss", "brier_score_loss"])
def test_python_booleans_held_as_objects_are_refused_as_boolean_scores(metric):
    # True/False in an object column (a frame built from Python lists with a None, or
    # after concatenating frames) were read as probabilities 0 and 1
    frame = _predictions_frame()
    frame["hard"] = pd.Series(frame["hard"].tolist(), dtype=object)
    assert frame["hard"].dtype == object
    with pytest.raises(DataError) as caught:
        cvreport.ResultsTable.from_predictions(
            frame, metric=metric, score="hard", record="record", **ROLES
        )
    _refuses_booleans(str(caught.value), metric)


@pytest.mark.parametrize("route", ["pandas", "duckdb", "polars", "arrays"])
def test_auc_of_hard_predictions_warns_once_that_it_measures_one_threshold(route):
    """Was: --metric roc_auc --score prediction (0/1 labels) gave a report of 'AUC' without a
    word; the AUC of hard predictions is their balanced accuracy, not a ranking."""
    frame = _predictions_frame()
    frame["hard01"] = frame["hard"].astype(int)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if route == "arrays":
            rows = frame[frame["fold"] == frame["fold"].iloc[0]]
            a = rows[rows["model"] == "A"].sort_values("record")
            b = rows[rows["model"] == "B"].sort_values("record")
            cvreport.arrays.paired_bootstrap_test(
                a["truth"].to_numpy(), a["hard01"].to_numpy(), b["hard01"].to_numpy(),
                metric="roc_auc", n_resamples=200, random_state=0,
            )  # fmt: skip
        else:
            source = _sources(frame)[route]
            cvreport.ResultsTable.from_predictions(
                source, metric="roc_auc", score="hard01", record="record", **ROLES
            )
    hard = [w for w in caught if "only two values (0 and 1)" in str(w.message)]
    assert len(hard) == (2 if route == "arrays" else 1), [str(w.message) for w in caught]
    assert all(w.category is DegenerateStatisticWarning for w in hard)
    assert all(w.filename == __file__ for w in hard)  # points at the user's call
    message = " ".join(str(hard[0].message).split())
    assert "balanced accuracy, (TPR + TNR) / 2" in message and "predict_proba" in message
    # probabilities give no such warning
    with warnings.catch_warnings(record=True) as quiet:
        warnings.simplefilter("always")
        cvreport.ResultsTable.from_predictions(
            frame.assign(p=np.linspace(0.01, 0.99, len(frame))),
            metric="roc_auc", score="p", record="record", **ROLES,
        )  # fmt: skip
    assert not [w for w in quiet if "only two values" in str(w.message)]
