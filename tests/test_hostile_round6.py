"""Hostile input of round six: odd values in every role, on every engine and route.

Each test holds inputs that once gave a raw exception, a value read one way on
one route and another way on the next, or a report that could not name what it
compared; the expected behaviour is a typed error that says what is wrong and
what to do, the same on every route, or numbers checked against an independent
computation (scipy, scikit-learn, or the pandas route of the same table).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    cohen_kappa_score,
    f1_score,
    roc_auc_score,
    zero_one_loss,
)

import cvreport
from cvreport.cli import main
from cvreport.errors import CVReportError, DataError
from cvreport.reporting.analyse import analyse
from tests._engines import need
from tests.test_hostile_round3 import _predictions

FORMULA = "loss ~ model | replication + fold"
ENGINES = [None, "duckdb", "polars"]


def _losses(n: int = 20, seed: int = 0) -> pd.DataFrame:
    """Two models' 0/1 losses on 2×2 CV of ``n`` records (labels, scores, truth kept)."""
    frame = _predictions(n, seed)
    frame["loss"] = (frame["yhat"] != frame["y"]).astype(float)
    return frame


def _error(build) -> CVReportError:
    with pytest.raises(CVReportError) as raised:
        build()
    return raised.value


def _same_error_on_every_engine(build) -> CVReportError:
    """The error of ``build(engine)`` on pandas; DuckDB and Polars raise its type and text."""
    expected = _error(lambda: build(None))
    for engine in ENGINES[1:]:
        got = _error(lambda engine=engine: build(engine))
        assert (type(got), str(got)) == (type(expected), str(expected)), engine
    return expected


# ---------------------------------------------------------------- missing values in a boolean


@pytest.mark.parametrize("source", ["pandas", "polars", "duckdb"])
def test_a_boolean_loss_with_a_missing_value_is_told_as_a_missing_loss_everywhere(source):
    """Once DuckDB and Polars answered with their own binder error (no is_finite on BOOLEAN)."""
    frame = _losses()
    flags = frame["loss"].astype(bool).astype("boolean")
    flags[frame.index[2]] = pd.NA
    frame["loss"] = flags
    expected = _error(lambda: cvreport.ResultsTable.from_formula(FORMULA, frame))
    assert isinstance(expected, DataError)
    assert "1 value(s) that are not finite numbers (1 NaN" in str(expected)
    assert f"record={frame['record'].iloc[2]}" in str(expected)
    for engine in ENGINES[1:]:
        got = _error(
            lambda engine=engine: cvreport.ResultsTable.from_formula(FORMULA, frame, engine=engine)
        )
        assert str(got) == str(expected), engine
    if source == "polars":
        pl = need("polars")
        data = pl.from_pandas(frame)
    elif source == "duckdb":
        duckdb = need("duckdb")
        data = duckdb.from_arrow(need("pyarrow").Table.from_pandas(frame, preserve_index=False))
    else:
        return
    got = _error(lambda: cvreport.ResultsTable.from_formula(FORMULA, data))
    assert str(got) == str(expected)


def test_a_boolean_loss_without_missing_values_is_the_loss_of_its_numbers():
    frame = _losses()
    numbers = cvreport.Report(cvreport.ResultsTable.from_formula(FORMULA, frame)).to_frame()
    frame["loss"] = frame["loss"].astype(bool).astype("boolean")
    for engine in ENGINES:
        flags = cvreport.Report(
            cvreport.ResultsTable.from_formula(FORMULA, frame, engine=engine)
        ).to_frame()
        pd.testing.assert_frame_equal(flags, numbers)


# ---------------------------------------------------------------- labels a report cannot print


def test_an_empty_model_label_is_refused_on_every_engine():
    """Once a frame gave a report comparing '' with 'b' while its CSV said 'missing model'."""
    frame = _losses()
    frame["model"] = frame["model"].map({"a": "", "b": "b"})
    error = _same_error_on_every_engine(
        lambda engine: cvreport.ResultsTable.from_formula(FORMULA, frame, engine=engine)
    )
    assert isinstance(error, DataError)
    assert "model column 'model' holds an empty label ('')" in str(error)
    assert "give every model a name" in str(error)


def test_a_model_label_of_spaces_is_kept_by_every_engine_and_by_its_csv(tmp_path):
    """A CSV keeps '  ' as a label, so the frame and its file give one report."""
    frame = _losses()
    frame["model"] = frame["model"].map({"a": "  ", "b": "b"})
    path = tmp_path / "spaces.csv"
    frame.to_csv(path, index=False)
    reference = cvreport.Report(cvreport.ResultsTable.from_formula(FORMULA, frame)).to_frame()
    assert reference["model_a"].tolist()[0] == "  "
    for data, engine in [(frame, "duckdb"), (frame, "polars"), (str(path), "duckdb")]:
        table = cvreport.ResultsTable.from_formula(FORMULA, data, engine=engine)
        pd.testing.assert_frame_equal(cvreport.Report(table).to_frame(), reference)


def test_an_empty_model_label_is_refused_by_every_kind_of_table(tmp_path):
    frame = _losses()
    frame["model"] = frame["model"].map({"a": "", "b": "b"})
    folds = frame.groupby(["model", "replication", "fold"], as_index=False)["loss"].mean()
    many = pd.concat([frame.assign(dataset="d1"), frame.assign(dataset="d2")])
    path = tmp_path / "blank.parquet"
    frame.to_parquet(path)
    builds = [
        lambda: cvreport.ResultsTable.from_predictions(
            frame, truth="y", prediction="yhat", metric="accuracy"
        ),
        lambda: cvreport.ResultsTable.from_predictions(
            frame, truth="y", score="p", metric="roc_auc", engine="duckdb"
        ),
        lambda: cvreport.ResultsTable.from_fold_scores(folds, score="loss"),
        lambda: cvreport.DatasetsTable.from_formula(f"{FORMULA} | dataset", many),
        lambda: cvreport.ResultsTable.from_formula(FORMULA, str(path), engine="duckdb"),
    ]
    for build in builds:
        error = _error(build)
        assert isinstance(error, DataError)
        assert "holds an empty label ('')" in str(error)


def test_the_command_line_refuses_an_empty_model_label_and_writes_nothing(tmp_path, capsys):
    frame = _losses()
    frame["model"] = frame["model"].map({"a": "", "b": "b"})
    data, out = tmp_path / "blank.parquet", tmp_path / "report.md"
    frame.to_parquet(data)
    assert main(["report", str(data), "-f", FORMULA, "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("cvreport: error: ") and "Traceback" not in err
    assert "holds an empty label ('')" in err
    assert not out.exists()


def test_visible_labels_with_specials_give_the_same_report_on_every_engine():
    """Unicode, newlines, HTML and LaTeX specials: escaped in every format, one text everywhere."""
    frame = _losses()
    names = {"a": "<script>alert(1)</script>", "b": "50% & R_2 $x$ \\emph{y}\nnäive"}
    frame["model"] = frame["model"].map(names)
    reports = [
        cvreport.Report(cvreport.ResultsTable.from_formula(FORMULA, frame, engine=engine))
        for engine in ENGINES
    ]
    source = re.compile(r"^\| Source \| .* \|$", re.MULTILINE)
    texts = {source.sub("", report.to_markdown()) for report in reports}
    assert len(texts) == 1
    html, tex = reports[0].to_html(), reports[0].to_latex()
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "50\\% \\& R\\_2 \\$x\\$ \\textbackslash{}emph\\{y\\}" in tex
    assert "\\<script\\>" in reports[0].to_markdown()


# ---------------------------------------------------------------- the data sets × models scores

_SCORES = pd.DataFrame(
    {
        "new": [0.91, 0.85, 0.78, 0.95, 0.70, 0.88, 0.81],
        "old": [0.89, 0.80, 0.75, 0.94, 0.66, 0.86, 0.80],
        "base": [0.85, 0.79, 0.70, 0.90, 0.67, 0.80, 0.74],
    }
)


def _compare(scores: pd.DataFrame):
    return cvreport.compare_datasets(scores, direction="higher", n_samples=2000)


@pytest.mark.parametrize(
    ("scores", "words"),
    [
        (_SCORES.set_axis(["d1"] * 7), "name data set 'd1' on more than one row"),
        (_SCORES.set_axis([1, "1", "b"], axis=1), "models of different types that read the same"),
        (_SCORES.set_axis(["", "old", "base"], axis=1), "name a model by the empty text ('')"),
        (_SCORES.astype(str), "must be numbers, but the scores of 'new', 'old', 'base' are text"),
    ],
    ids=["repeated data set", "1 and '1'", "empty model name", "text scores"],
)
def test_compare_datasets_refuses_what_the_long_tables_refuse(scores, words):
    """Once: seven rows of 'd1' ranked as seven data sets, 1 and '1' as two models, text
    scores silently read as numbers (a results table refuses a loss of text)."""
    error = _error(lambda: _compare(scores))
    assert isinstance(error, DataError)
    assert words in str(error)


def test_compare_datasets_of_numbers_in_objects_and_int64_are_its_float_ranks():
    expected = stats.rankdata(-_SCORES.to_numpy(), axis=1).mean(axis=0)
    for scores in (_SCORES, _SCORES.astype(object), (_SCORES * 100).round().astype("Int64")):
        ranks = _compare(scores).friedman.average_ranks.to_numpy()
        np.testing.assert_allclose(ranks, expected, rtol=0, atol=1e-12)


def test_many_data_sets_report_and_frame_route_refuse_a_repeated_model_name_alike():
    """The long table refuses labels that print alike; the frame of scores now does too."""
    frame = _losses()
    frame["model"] = frame["model"].map({"a": 1, "b": "1"}).astype(object)
    many = pd.concat([frame.assign(dataset="d1"), frame.assign(dataset="d2")])
    long_error = _error(lambda: cvreport.DatasetsTable.from_formula(f"{FORMULA} | dataset", many))
    wide_error = _error(lambda: _compare(_SCORES.set_axis([1, "1", "base"], axis=1)))
    for error in (long_error, wide_error):
        assert isinstance(error, DataError)
        assert "of different types that read the same (1, '1')" in str(error)


# ---------------------------------------------------------------- names of tests and options


@pytest.fixture(scope="module")
def table() -> cvreport.ResultsTable:
    return cvreport.ResultsTable.from_formula(FORMULA, cvreport.load_example())


def test_analyse_names_an_unknown_option_instead_of_a_raw_type_error(table):
    error = _error(lambda: analyse(table, alpah=0.05))
    assert type(error) is CVReportError
    assert "unknown option 'alpah'" in str(error) and "'alpha'" in str(error)


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        (" All", "all"),
        ("RECOMMENDED ", "recommended"),
        (
            "Paired_TTest_5x2cv , combined_ftest_5x2cv",
            ["paired_ttest_5x2cv", "combined_ftest_5x2cv"],
        ),
        ([" paired_ttest_5x2cv"], ["paired_ttest_5x2cv"]),
    ],
)
def test_test_names_are_read_as_metric_names_are(table, given, canonical):
    """'Accuracy ' is accuracy; ' All' was 'unknown test 'all'' though 'all' was offered."""
    pairs = [("logistic_regression", "decision_tree")]
    ours = cvreport.Report(table, pairs=pairs, tests=given).to_frame()
    reference = cvreport.Report(table, pairs=pairs, tests=canonical).to_frame()
    pd.testing.assert_frame_equal(ours, reference)
    assert len(reference) >= 1


def test_a_correction_in_capitals_is_the_correction(table):
    ours = cvreport.Report(table, correction=" Holm").to_frame()
    pd.testing.assert_frame_equal(ours, cvreport.Report(table, correction="holm").to_frame())


def test_the_command_line_reads_test_names_as_the_api_does(tmp_path, capsys):
    out = tmp_path / "all.md"
    argv = ["report", "--example", "-o", str(out), "--tests", " All", "--correction", "Holm"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    table = cvreport.ResultsTable.from_formula(FORMULA, cvreport.load_example())
    frame = cvreport.Report(table, tests="all", correction="holm").to_frame()
    assert f"({len(frame)} test results on 3 pairs)" in printed, printed
    text = out.read_text(encoding="utf-8")
    for method in frame["method"].unique():
        assert method in text, method


# ---------------------------------------------------------------- hostile values kept right


@pytest.mark.parametrize("metric", ["Accuracy ", " ACCURACY", "accuracy"])
def test_a_metric_name_in_any_case_gives_the_accuracy_of_sklearn(metric):
    frame = _losses()
    for engine in ENGINES:
        table = cvreport.ResultsTable.from_predictions(
            frame, truth="y", prediction="yhat", metric=metric, engine=engine
        )
        folds = table.fold_errors()
        for row in folds.itertuples():
            part = frame[
                (frame["model"] == row.model)
                & (frame["replication"] == row.replication)
                & (frame["fold"] == row.fold)
            ]
            assert 1 - row.loss == pytest.approx(accuracy_score(part["y"], part["yhat"]), abs=1e-12)


def test_a_formula_metric_in_capitals_gives_the_auc_of_sklearn():
    frame = _losses(40)
    noise = np.random.default_rng(6).normal(0.0, 0.4, frame.shape[0])
    frame["p"] = np.clip(frame["p"] + noise, 0.0, 1.0)
    ours = cvreport.ResultsTable.from_formula("  ROC_AUC( y ,p )~model|replication + fold", frame)
    plain = cvreport.ResultsTable.from_formula("roc_auc(y, p) ~ model | replication + fold", frame)
    pd.testing.assert_frame_equal(ours.fold_errors(), plain.fold_errors())
    aucs = []
    for row in plain.fold_errors().itertuples():
        part = frame[
            (frame["model"] == row.model)
            & (frame["replication"] == row.replication)
            & (frame["fold"] == row.fold)
        ]
        aucs.append(roc_auc_score(part["y"], part["p"]))
    folds = plain.fold_errors()["loss"].to_numpy(float)
    assert min(aucs) < 0.95  # folds that are not all trivially perfect
    # the table keeps a score as its negative (lower is better inside)
    np.testing.assert_allclose(-folds, aucs, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "convert",
    [
        pytest.param(lambda s: s.astype("category"), id="categorical"),
        pytest.param(lambda s: s.astype("Int64"), id="nullable Int64"),
        pytest.param(
            lambda s: pd.Timestamp("2024-01-01", tz="Europe/Paris") + pd.to_timedelta(s, unit="h"),
            id="time-zone aware",
        ),
    ],
)
@pytest.mark.parametrize("role", ["record", "fold", "replication"])
def test_keys_of_odd_dtypes_give_the_numbers_of_plain_keys(convert, role):
    frame = _losses()
    reference = cvreport.Report(cvreport.ResultsTable.from_formula(FORMULA, frame)).to_frame()
    frame[role] = convert(frame[role])
    numeric = reference.select_dtypes("number").columns
    for engine in ENGINES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours = cvreport.Report(
                cvreport.ResultsTable.from_formula(FORMULA, frame, engine=engine)
            ).to_frame()
        np.testing.assert_allclose(
            ours[numeric].to_numpy(float), reference[numeric].to_numpy(float), atol=1e-12
        )


@pytest.mark.parametrize(
    "names",
    [
        {"loss": "_s", "model": "n01", "record": "loss_a"},
        {"loss": "loss_a", "model": "loss_b", "fold": "_f", "replication": "n10"},
        {"loss": "diff", "model": "a", "fold": "b", "replication": "n", "record": "key"},
    ],
)
def test_columns_named_as_internal_names_give_the_numbers_of_plain_names(names):
    frame = _losses()
    reference = cvreport.Report(cvreport.ResultsTable.from_formula(FORMULA, frame)).to_frame()
    renamed = frame.rename(columns=names)
    get = {**{k: k for k in ("loss", "model", "replication", "fold", "record")}, **names}
    formula = f"{get['loss']} ~ {get['model']} | {get['replication']} + {get['fold']}"
    numeric = reference.select_dtypes("number").columns
    for engine in ENGINES:
        table = cvreport.ResultsTable.from_formula(
            formula, renamed, record=get["record"], engine=engine
        )
        ours = cvreport.Report(table).to_frame()
        np.testing.assert_allclose(
            ours[numeric].to_numpy(float), reference[numeric].to_numpy(float), atol=1e-12
        )


# ---------------------------------------------------------------- a label read as int or text


def _many_with_integer_models() -> pd.DataFrame:
    frame = _losses()
    frame["model"] = frame["model"].map({"a": 1, "b": 2})
    return pd.concat([frame.assign(ds=name) for name in ("x", "y", "z")], ignore_index=True)


def test_a_baseline_given_as_text_finds_the_integer_model_as_a_pair_does():
    """Once "1" found model 1 in a pair, a test and a plan, but not as compare_datasets' baseline
    (whose refusal then showed np.int64(1)); the command line always passes text."""
    table = cvreport.DatasetsTable.from_formula(f"{FORMULA} | ds", _many_with_integer_models())
    by_text = cvreport.compare_datasets(table, baseline="1", n_samples=2000)
    by_int = cvreport.compare_datasets(table, baseline=1, n_samples=2000)
    pd.testing.assert_frame_equal(by_text.wilcoxon, by_int.wilcoxon)
    assert set(by_text.wilcoxon[["a", "b"]].to_numpy().ravel().tolist()) == {1, 2}
    error = _error(lambda: cvreport.compare_datasets(table, baseline="3", n_samples=2000))
    assert "the baseline '3' is not a model; choose one of 1, 2" in str(error)
    flag = _error(lambda: cvreport.compare_datasets(table, baseline=True, n_samples=2000))
    assert "the baseline True is not a model" in str(flag)  # True == 1 in Python only


def test_the_datasets_command_finds_an_integer_baseline(tmp_path, capsys):
    data, out = tmp_path / "many.csv", tmp_path / "many.md"
    _many_with_integer_models().to_csv(data, index=False)
    argv = ["datasets", str(data), "-f", f"{FORMULA} | ds", "--baseline", "1", "-o", str(out)]
    assert main(argv) == 0, capsys.readouterr().err
    assert "(2 models on 3 data sets)" in capsys.readouterr().out
    assert out.exists()


def test_an_empty_data_set_label_is_refused_as_an_empty_model_label():
    frame = _losses()
    many = pd.concat([frame.assign(ds="x"), frame.assign(ds="")], ignore_index=True)
    for data in (many, need("duckdb").from_df(many)):
        error = _error(
            lambda data=data: cvreport.DatasetsTable.from_formula(f"{FORMULA} | ds", data)
        )
        assert isinstance(error, DataError)
        assert "a data set is labelled by the empty text ('')" in str(error)


# ---------------------------------------------------------------- a score across data sets


def _fold_means(frame: pd.DataFrame, metric) -> pd.Series:
    per_fold = frame.groupby(["ds", "model", "replication", "fold"]).apply(
        lambda part: metric(part["y"], part["yhat"])
    )
    return per_fold.groupby(["ds", "model"]).mean()


@pytest.mark.parametrize(
    ("name", "metric"),
    [
        ("accuracy", accuracy_score),
        ("balanced_accuracy", balanced_accuracy_score),
        ("kappa", cohen_kappa_score),
        ("f1", f1_score),
        ("zero_one_loss", zero_one_loss),
    ],
)
def test_the_mean_score_of_each_data_set_is_the_mean_of_sklearns_fold_scores(name, metric):
    """Once the many-data-sets table showed a mean accuracy of −0.150 for 0.850: the negated
    internal loss 1 − accuracy instead of the accuracy (ranks unchanged, every mean off by 1)."""
    frame = _losses(40)
    noise = np.random.default_rng(7).random(frame.shape[0]) < 0.15
    frame["yhat"] = np.where(noise, 1 - frame["yhat"], frame["yhat"])
    frame.loc[frame["model"] == "b", "yhat"] = frame.loc[frame["model"] == "b", "y"]
    many = pd.concat([frame.assign(ds="x"), frame.assign(ds="y")], ignore_index=True)
    expected = _fold_means(many, metric).unstack("model")
    routes = [
        cvreport.DatasetsTable.from_predictions(
            many, truth="y", prediction="yhat", metric=name, dataset="ds"
        ),
        cvreport.DatasetsTable.from_formula(
            f"{name}(y, yhat) ~ model | replication + fold | ds", many
        ),
    ]
    for table in routes:
        means = table.means()
        np.testing.assert_allclose(
            means.to_numpy(float),
            expected.loc[means.index, means.columns].to_numpy(float),
            atol=1e-12,
        )
    assert np.ptp(expected.to_numpy()) > 0  # the models differ


def test_the_many_data_sets_report_prints_the_accuracy_not_its_complement():
    from cvreport.reporting.multi_report import DatasetsReport

    frame = _losses()
    many = pd.concat([frame.assign(ds=name) for name in ("x", "y", "z")], ignore_index=True)
    table = cvreport.DatasetsTable.from_predictions(
        many, truth="y", prediction="yhat", metric="accuracy", dataset="ds"
    )
    accuracy = _fold_means(many, accuracy_score).loc[("x", "a")]
    text = DatasetsReport(table, n_samples=2000).to_markdown()
    assert f"| x | **{accuracy:.3f} ± " in text
    assert "-0.150" not in text and accuracy == pytest.approx(0.85)


def test_per_fold_accuracies_across_data_sets_keep_their_mean():
    frame = _losses()
    folds = frame.groupby(["model", "replication", "fold"], as_index=False).apply(
        lambda part: pd.Series({"accuracy": accuracy_score(part["y"], part["yhat"])})
    )
    many = pd.concat([folds.assign(ds="x"), folds.assign(ds="y")], ignore_index=True)
    table = cvreport.DatasetsTable.from_formula(
        "accuracy ~ model | replication + fold | ds", many, per_fold=True, test_train_ratio=1.0
    )
    expected = many.groupby(["ds", "model"])["accuracy"].mean().unstack("model")
    np.testing.assert_allclose(
        table.means().to_numpy(float),
        expected.loc[:, list(table.models)].to_numpy(float),
        atol=1e-12,
    )


# ---------------------------------------------------------------- labels that read as numbers


def test_model_labels_that_look_like_numbers_read_alike_from_a_csv_on_every_route(tmp_path):
    frame = _losses()
    frame["model"] = frame["model"].map({"a": "007", "b": "1e3"})
    path = tmp_path / "labels.csv"
    frame.to_csv(path, index=False)
    models = {
        engine: cvreport.ResultsTable.from_formula(FORMULA, str(path), engine=engine).models
        for engine in ("duckdb", "polars")
    }
    models["pandas"] = cvreport.ResultsTable.from_formula(
        FORMULA, cvreport.data.io.read_results(path)
    ).models
    assert len(set(models.values())) == 1, models


# ---------------------------------------------------------------- files of one layout, two orders


def _two_files_two_orders(folder) -> tuple[str, pd.DataFrame]:
    """Two CSV files of the same columns, the second with its two losses swapped in place."""
    frame = _losses()[["replication", "fold", "model", "record", "loss", "p"]]
    frame = frame.assign(sqerr=(frame["p"] - 0.5) ** 2).drop(columns="p")
    first = frame[frame["replication"] == 1]
    second = frame[frame["replication"] == 2][
        ["replication", "fold", "model", "record", "sqerr", "loss"]
    ]
    first.to_csv(folder / "r1.csv", index=False)
    second.to_csv(folder / "r2.csv", index=False)
    return str(folder / "r*.csv"), frame


@pytest.mark.parametrize("engine", [None, "duckdb", "polars"])
def test_csv_files_with_their_columns_in_another_order_are_read_by_name(engine, tmp_path):
    """Once DuckDB (the default for a path) stacked the files by position: the second file's
    'sqerr' was read as 'loss', a silently wrong analysis; Polars refused them."""
    pattern, frame = _two_files_two_orders(tmp_path)
    expected = cvreport.ResultsTable.from_formula(FORMULA, frame)
    table = cvreport.ResultsTable.from_formula(FORMULA, pattern, engine=engine)
    pd.testing.assert_frame_equal(table.fold_errors(), expected.fold_errors())
    pd.testing.assert_frame_equal(
        cvreport.Report(table).to_frame(), cvreport.Report(expected).to_frame()
    )


def test_the_command_line_reads_reordered_csv_files_by_name(tmp_path, capsys):
    pattern, frame = _two_files_two_orders(tmp_path)
    out = tmp_path / "pairs.csv"
    argv = ["report", pattern, "-f", FORMULA, "--engine", "duckdb", "-o", str(tmp_path / "r.md")]
    assert main([*argv, "--pairs-csv", str(out)]) == 0, capsys.readouterr().err
    expected = cvreport.Report(cvreport.ResultsTable.from_formula(FORMULA, frame)).to_frame()
    np.testing.assert_allclose(pd.read_csv(out)["pvalue"], expected["pvalue"], rtol=1e-12)


def test_one_block_named_fold_is_not_called_a_missing_fold_column():
    """Was: "... | fold" on 10×10 CV said "the table names no fold column", though the
    formula names it; what is missing is the replication."""
    rows = [
        {"replication": r, "fold": k, "model": m, "record": i, "loss": (i + r + k) % 2}
        for r in range(3)
        for k in range(2)
        for m in ("A", "B")
        for i in range(8)
        if (i // (r + 1) + r) % 2 == k  # each replication splits the records its own way
    ]
    frame = pd.DataFrame(rows)
    with pytest.raises(DataError) as caught:
        cvreport.ResultsTable.from_formula("loss ~ model | fold", frame)
    message = " ".join(str(caught.value).split())
    assert "names no fold column" not in message
    assert "the table names one block column, 'fold'" in message
    assert "name both columns (e.g. 'loss ~ model | replication + fold'" in message


def test_data_that_can_never_be_read_is_named_before_an_existing_output(tmp_path, capsys):
    """Was: 'y.md exists; pass --overwrite' first, and only with --overwrite 'the data must
    be a .csv or .parquet file': two runs to learn one fault of the input."""
    from cvreport.cli import main

    data = tmp_path / "results.xlsx"
    data.write_bytes(b"not a table")
    out = tmp_path / "y.md"
    out.write_text("kept")
    assert main(["report", str(data), "-f", "loss ~ model | replication + fold", "-o", str(out)])
    err = capsys.readouterr().err
    assert "must be a .csv or .parquet file" in err and "--overwrite" not in err
    assert out.read_text() == "kept"
