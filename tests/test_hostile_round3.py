"""Hostile input of round three: a careless user through every public entry.

Each test holds inputs that once gave a raw exception, a silent wrong number or a
changed file; the expected behaviour is a typed error that says what is wrong
and what to do, or numbers checked against an independent computation.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport.errors import DataError


def _predictions(n: int = 40, seed: int = 0) -> pd.DataFrame:
    """Two models' labels and probabilities on 2×2 CV of ``n`` records."""
    rng = np.random.default_rng(seed)
    rows = []
    for replication in (1, 2):
        order = rng.permutation(n)
        for fold in (1, 2):
            for model in ("a", "b"):
                for record in order[fold - 1 :: 2]:
                    truth = int(record % 2)
                    p = float(np.clip(0.5 + (0.3 if truth else -0.3) + rng.normal(0, 0.3), 0, 1))
                    rows.append(
                        {
                            "replication": replication,
                            "fold": fold,
                            "model": model,
                            "record": int(record),
                            "y": truth,
                            "p": p,
                            "q": 1 - p,
                            "yhat": int(p > 0.5),
                            "doc": int(record) // 4,
                        }
                    )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- one column, two roles


@pytest.mark.parametrize(
    ("keywords", "column"),
    [
        ({"score": "y"}, "y"),  # the truth as its own score: AUC 1 in every fold
        ({"score": "record"}, "record"),
        ({"score": "fold"}, "fold"),
        ({"score": "model"}, "model"),  # was pandas' "could not convert string to float"
        ({"score": "yhat", "prediction": "yhat"}, "yhat"),
        ({"score": ["p", "p"], "metric": "roc_auc_ovr"}, "p"),
        ({"score": {0: "p", 1: "p"}, "metric": "roc_auc_ovr"}, "p"),
        ({"score": "p", "cluster": "p"}, "p"),
    ],
)
@pytest.mark.parametrize("engine", [None, "duckdb"])
def test_a_score_column_that_plays_another_role_is_refused(keywords, column, engine) -> None:
    options = {"metric": "roc_auc", **keywords}
    with pytest.raises(DataError, match=rf"column '{column}' is given for more than one role"):
        cvreport.ResultsTable.from_predictions(_predictions(), truth="y", engine=engine, **options)


@pytest.mark.parametrize("cluster", ["record", "model", "fold", "replication"])
@pytest.mark.parametrize("engine", [None, "duckdb", "polars"])
def test_a_cluster_column_that_plays_another_role_is_refused_by_every_route(
    cluster, engine
) -> None:
    frame = cvreport.load_example()
    formula = "loss ~ model | replication + fold"
    match = rf"column '{cluster}' is given for more than one role"
    with pytest.raises(DataError, match=match):
        cvreport.ResultsTable.from_formula(formula, frame, cluster=cluster, engine=engine)
    with pytest.raises(DataError, match=match):
        cvreport.ResultsTable(frame, cluster=cluster, engine=engine)
    # the predictions route already refused it: the routes now agree
    with pytest.raises(DataError, match=match):
        cvreport.ResultsTable.from_predictions(
            frame, truth="truth", prediction="prediction", cluster=cluster, engine=engine
        )


@pytest.mark.filterwarnings("ignore::cvreport.ClusterLeakageWarning")
def test_distinct_score_and_cluster_columns_still_give_the_auc_of_sklearn() -> None:
    from sklearn.metrics import roc_auc_score

    frame = _predictions()
    table = cvreport.ResultsTable.from_predictions(
        frame, truth="y", score="p", metric="roc_auc", cluster="doc"
    )
    got = table.fold_errors().set_index(["replication", "fold", "model"])["loss"]
    for (replication, fold, model), group in frame.groupby(["replication", "fold", "model"]):
        expected = roc_auc_score(group["y"], group["p"])
        assert table.to_metric(got[(replication, fold, model)]) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("formula", "keywords", "column"),
    [
        ("loss ~ model | replication + fold | dataset", {"cluster": "dataset"}, "dataset"),
        ("loss ~ model | replication + fold + cluster(dataset) | dataset", {}, "dataset"),
        ("loss ~ model | replication + fold | model", {}, "model"),
        ("loss ~ model | replication + fold | record", {}, "record"),
        ("loss ~ model | replication + fold | loss", {}, "loss"),
    ],
)
def test_the_data_set_column_cannot_play_another_role(formula, keywords, column) -> None:
    frame = cvreport.load_example("multi")
    with pytest.raises(DataError, match=rf"column '{column}' is given for more than one role"):
        cvreport.DatasetsTable.from_formula(formula, frame, **keywords)


@pytest.mark.parametrize("dataset", ["y", "model", "record"])
def test_the_data_set_column_of_predictions_cannot_play_another_role(dataset) -> None:
    frame = cvreport.load_example("multi").assign(y=0)
    with pytest.raises(DataError, match=rf"column '{dataset}' is given for more than one role"):
        cvreport.DatasetsTable.from_predictions(
            frame, truth="y", prediction="loss", dataset=dataset
        )


@pytest.mark.parametrize("engine", [None, "duckdb"])
def test_the_record_column_cannot_be_the_loss_of_a_formula(engine) -> None:
    # was read as the record, then "60 keys appear in more than one row"
    with pytest.raises(DataError, match=r"column 'loss' is given for more than one role"):
        cvreport.ResultsTable.from_formula(
            "loss ~ model | replication + fold",
            cvreport.load_example(),
            record="loss",
            engine=engine,
        )


# ---------------------------------------------------------------- options of many data sets


@pytest.fixture(scope="module")
def multi_table() -> cvreport.DatasetsTable:
    return cvreport.DatasetsTable.from_formula(
        "loss ~ model | replication + fold | dataset", cvreport.load_example("multi")
    )


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"seed": -1}, r"seed must be an integer ≥ 0"),  # was numpy's "expected non-negative"
        ({"seed": "x"}, r"seed must be an integer ≥ 0"),  # was numpy's SeedSequence TypeError
        ({"seed": 1.5}, r"seed must be an integer ≥ 0"),
        ({"correction": "holmm"}, r"unknown correction='holmm'"),  # statsmodels' ValueError
        ({"correction": 3}, r"unknown correction=3"),
        ({"pairwise_correction": "holmm"}, r"unknown pairwise_correction='holmm'"),
        ({"direction": "lowr"}, r"direction is 'lower' .* or 'higher' .*got 'lowr'"),
    ],
)
def test_compare_datasets_refuses_bad_options_in_words(multi_table, options, match) -> None:
    with pytest.raises(cvreport.CVReportError, match=match):
        cvreport.compare_datasets(multi_table, **options)


def test_a_misspelt_pairwise_correction_is_refused_with_two_models_too() -> None:
    frame = cvreport.load_example("multi")
    two = cvreport.DatasetsTable.from_formula(
        "loss ~ model | replication + fold | dataset",
        frame[frame["model"].isin(["knn", "naive_bayes"])],
    )
    with pytest.raises(cvreport.CVReportError, match="unknown pairwise_correction='holmm'"):
        cvreport.compare_datasets(two, pairwise_correction="holmm")


def test_a_ratio_keyed_by_an_unknown_data_set_is_refused() -> None:
    frame = cvreport.load_example("multi")
    scores = frame.groupby(["dataset", "replication", "fold", "model"], as_index=False)["loss"]
    with pytest.raises(DataError, match="test_train_ratio names 'ghost', which are not data sets"):
        cvreport.DatasetsTable.from_formula(
            "loss ~ model | replication + fold | dataset",
            scores.mean(),
            per_fold=True,
            test_train_ratio={"breast_cancer": 1.0, "ghost": 1.0},
        )


def test_a_seed_as_numpy_integer_gives_the_draws_of_the_int(multi_table) -> None:
    with_int = cvreport.compare_datasets(multi_table, n_samples=2000, seed=3)
    with_numpy = cvreport.compare_datasets(multi_table, n_samples=2000, seed=np.int64(3))
    assert [r.p_a_better for r in with_int.bayesian] == [r.p_a_better for r in with_numpy.bayesian]


# ---------------------------------------------------------------- labels of mixed types


def _mixed(column: str, mapping) -> pd.DataFrame:
    frame = cvreport.load_example()
    values = frame[column].map(mapping).astype(object)
    return frame.assign(**{column: values.where(values.notna(), frame[column])})


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize(
    ("column", "mapping", "shown"),
    [
        ("model", {"logistic_regression": 1, "decision_tree": "1"}, r"1, '1'"),
        ("record", {0: "0"}, r"'0', 1"),
    ],
)
def test_mixed_types_handed_to_an_engine_are_refused_in_words(
    engine, column, mapping, shown
) -> None:
    # was pyarrow's ArrowInvalid "Could not convert '1' with type str"
    with pytest.raises(DataError, match=rf"column '{column}' mixes kinds of values \({shown}\)"):
        cvreport.ResultsTable.from_formula(
            "loss ~ model | replication + fold", _mixed(column, mapping), engine=engine
        )


@pytest.mark.parametrize(
    ("column", "mapping"),
    [
        ("model", {"logistic_regression": 1, "decision_tree": "1"}),  # two models shown as "1"
        ("fold", {1: "1"}),
        ("replication", {2: "2"}),
    ],
)
def test_labels_of_two_types_that_read_the_same_are_refused(column, mapping) -> None:
    frame = _mixed(column, mapping)
    if column != "model":  # the string labels on some rows only, so both kinds are present
        frame[column] = frame[column].where(
            frame["model"] != "naive_bayes",
            frame[column].map(lambda v: int(v) if isinstance(v, str) else v),
        )
    with pytest.raises(DataError, match=rf"the {column} column '{column}' holds labels of"):
        cvreport.ResultsTable.from_formula("loss ~ model | replication + fold", frame)


def test_a_data_set_labelled_1_and_another_labelled_text_1_are_refused() -> None:
    frame = cvreport.load_example("multi")
    names = frame["dataset"].unique()
    labels = frame["dataset"].map({names[0]: 1, names[1]: "1"}).astype(object)
    frame["dataset"] = labels.where(labels.notna(), frame["dataset"])
    with pytest.raises(DataError, match=r"the data set column 'dataset' holds labels .*\(1, '1'\)"):
        cvreport.DatasetsTable.from_formula("loss ~ model | replication + fold | dataset", frame)


def test_labels_of_two_types_that_read_differently_stay_two_labels() -> None:
    frame = _mixed("model", {"logistic_regression": 1, "decision_tree": "2"})
    table = cvreport.ResultsTable.from_formula("loss ~ model | replication + fold", frame)
    assert table.models == (1, "2", "naive_bayes")
    # the same numbers as with text labels
    plain = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example()
    )
    expected = cvreport.paired_ttest_5x2cv(plain, "logistic_regression", "decision_tree")
    assert cvreport.paired_ttest_5x2cv(table, 1, "2").pvalue == pytest.approx(expected.pvalue)


# ---------------------------------------------------------------- columns named by numbers


def _numbered() -> pd.DataFrame:
    """The example with its columns numbered 0..6 (replication, fold, model, record, ...)."""
    frame = cvreport.load_example()
    return frame.set_axis(range(frame.shape[1]), axis=1)


@pytest.mark.parametrize(
    "build",
    [
        lambda f: cvreport.ResultsTable(f, loss=6, model=2, replication=0, fold=1, record=3),
        lambda f: cvreport.ResultsTable(
            f, loss=6, model=2, replication=0, fold=1, record=3, engine="duckdb"
        ),
        lambda f: cvreport.ResultsTable.from_predictions(
            f, truth=4, prediction=5, model=2, replication=0, fold=1, record=3
        ),
        lambda f: cvreport.ResultsTable.from_fold_scores(
            f.groupby([0, 1, 2], as_index=False)[6].mean(), score=6, model=2, replication=0, fold=1
        ),
    ],
    ids=["keywords", "keywords-duckdb", "predictions", "fold-scores"],
)
def test_columns_named_by_numbers_are_refused_in_words(build) -> None:
    # was KeyError: '3' deep in the record layout (the names were turned into text there)
    with pytest.raises(DataError, match=r"columns are named by text, not by int: .*model=2"):
        build(_numbered())


# ---------------------------------------------------------------- splitters


@pytest.mark.parametrize("random_state", ["x", -1, b"1"])
@pytest.mark.parametrize("splitter", [cvreport.RandomMx2CV, cvreport.BlockRegularizedCV])
def test_a_bad_random_state_is_refused_in_words(splitter, random_state) -> None:
    # was numpy's SeedSequence TypeError or "expected non-negative integer"
    with pytest.raises(cvreport.CVReportError, match=r"random_state must be an int ≥ 0"):
        list(splitter(m=3, random_state=random_state).split(np.zeros((12, 1))))


def test_stratification_refuses_missing_labels() -> None:
    # a NaN label was silently a class of its own
    y = np.r_[np.nan, np.nan, np.zeros(18)]
    with pytest.raises(DataError, match=r"y has 2 missing label\(s\) \(first at position 0\)"):
        list(cvreport.BlockRegularizedCV(m=3, stratify=True).split(np.zeros((20, 1)), y))


def test_stratification_deals_labels_numpy_cannot_sort_class_by_class() -> None:
    # numpy's unique raised "'<' not supported between 'str' and 'int'"
    y = np.array([1, "a", 1, "a", 2, 2, 1, "a"], dtype=object)
    for _, test in cvreport.RandomMx2CV(m=3, stratify=True, random_state=0).split(
        np.zeros((8, 1)), y
    ):
        counts = pd.Series(y[test]).value_counts()
        # each class split as evenly as it can be: 3 records give 1 or 2, 2 give 1
        assert counts[1] in (1, 2) and counts["a"] in (1, 2) and counts[2] == 1


# ---------------------------------------------------------------- planning


@pytest.fixture(scope="module")
def pilot() -> cvreport.ResultsTable:
    return cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example()
    )


def test_designs_as_one_text_are_the_designs_it_names(pilot) -> None:
    # a text was iterated letter by letter: "cannot read '1' as a design"
    a, b = "logistic_regression", "naive_bayes"
    as_text = cvreport.plan(pilot, a, b, effect=0.02, designs="10x10, 5x2")
    as_list = cvreport.plan(pilot, a, b, effect=0.02, designs=["10x10", (5, 2)])
    assert str(as_text) == str(as_list)


@pytest.mark.parametrize(
    ("designs", "match"),
    [
        ([(10, "x")], r"a design \(m, K\) is two integers"),  # int('x'): raw ValueError
        ([], r"designs is empty"),
        (5, r"designs must be a list of designs"),  # 'int' object is not iterable
    ],
)
def test_bad_designs_are_refused_in_words(pilot, designs, match) -> None:
    with pytest.raises(cvreport.DesignError, match=match):
        cvreport.plan(pilot, "logistic_regression", "naive_bayes", effect=0.02, designs=designs)


@pytest.mark.parametrize("tests", [["mcnemr"], ["corrected_repeated_kfold_tt"]])
def test_the_power_curve_names_an_unknown_test(pilot, tests) -> None:
    # was "no planned test applies to these folds and replications"
    with pytest.raises(cvreport.CVReportError, match=rf"tests names '{tests[0]}', which the"):
        cvreport.power_curve(pilot, "logistic_regression", "naive_bayes", effect=0.02, tests=tests)


def test_the_power_curve_takes_one_test_as_text(pilot) -> None:
    a, b = "logistic_regression", "naive_bayes"
    one = cvreport.power_curve(pilot, a, b, effect=0.02, tests="corrected_repeated_kfold_ttest")
    listed = cvreport.power_curve(
        pilot, a, b, effect=0.02, tests=["corrected_repeated_kfold_ttest"]
    )
    assert one.svg == listed.svg


# ---------------------------------------------------------------- arrays


_DIFFERENCES = np.array([0.01, -0.02, 0.03, 0.0, 0.02])


@pytest.mark.parametrize(
    "test",
    [
        cvreport.arrays.paired_ttest_kfold,
        cvreport.arrays.wilcoxon_kfold,
        cvreport.arrays.sign_test,
        lambda d: cvreport.arrays.corrected_resampled_ttest(d, 0.25),
    ],
)
def test_complex_differences_are_refused_not_cut_to_their_real_part(test) -> None:
    # numpy's float64 conversion dropped the imaginary parts with a ComplexWarning only
    with pytest.raises(DataError, match="differences must be real numbers, got complex values"):
        test(_DIFFERENCES + 1j)


@pytest.mark.parametrize("ratio", [None, "x"])
def test_corrected_resampled_ttest_refuses_a_missing_ratio_in_words(ratio) -> None:
    # None raised float()'s TypeError
    with pytest.raises(cvreport.CVReportError, match="test_train_ratio must be a positive number"):
        cvreport.arrays.corrected_resampled_ttest(_DIFFERENCES, ratio)


def test_corrected_resampled_ttest_is_nadeau_and_bengio() -> None:
    from scipy import stats

    d, ratio = _DIFFERENCES, 0.25
    t = d.mean() / np.sqrt((1 / d.size + ratio) * d.var(ddof=1))
    expected = 2 * stats.t.sf(abs(t), d.size - 1)
    assert cvreport.arrays.corrected_resampled_ttest(d, ratio).pvalue == pytest.approx(expected)


# ---------------------------------------------------------------- files read by the CLI


def _main(*argv: str) -> int:
    from cvreport.cli import main

    return main(list(argv))


@pytest.fixture
def example_csv(tmp_path) -> str:
    path = tmp_path / "results.csv"
    cvreport.load_example().to_csv(path, index=False)
    return str(path)


def test_a_separator_of_two_characters_is_refused_before_pandas_reads(
    example_csv, tmp_path, capsys
) -> None:
    # pandas fell back to its python engine with a ParserWarning and the whole header
    # became one column, reported as missing columns
    out = tmp_path / "report.md"
    status = _main(
        "report",
        example_csv,
        "-f",
        "loss ~ model | replication + fold",
        "--sep",
        ";;",
        "-o",
        str(out),
    )
    assert status == 1 and not out.exists()
    assert "the separator must be one character such as ';', got ';;'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("", "the file is empty: give a CSV with a header"),
        (
            "model,loss\nna\xefve,1\n".encode("latin-1"),
            "the file is not UTF-8 text: save it as UTF-8",
        ),
    ],
    ids=["empty", "latin-1"],
)
def test_a_file_pandas_cannot_read_is_explained_with_what_to_do(
    tmp_path, capsys, content, words
) -> None:
    data = tmp_path / "results.csv"
    data.write_bytes(content.encode() if isinstance(content, str) else content)
    out = tmp_path / "report.md"
    status = _main("report", str(data), "-f", "loss ~ model", "-o", str(out))
    assert status == 1 and not out.exists()
    assert words in capsys.readouterr().err


# ---------------------------------------------------------------- notebook, explorer, simulator


def test_the_notebook_asks_for_a_path_when_given_a_frame(tmp_path) -> None:
    from cvreport.jupyter import notebook

    # was pathlib's TypeError "expected str, bytes or os.PathLike object, not DataFrame"
    with pytest.raises(DataError, match=r"data= is the path of the CSV or Parquet file"):
        notebook.write(tmp_path / "a.ipynb", data=cvreport.load_example())
    assert not (tmp_path / "a.ipynb").exists()


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"alpah": 0.1}, r"explore\(\) has no option 'alpah'; its options are 'a', 'alpha'"),
        ({"direction": "hgher"}, r"direction is 'lower' .* got 'hgher'"),  # said "rebuild"
    ],
)
def test_explore_refuses_careless_options_in_words(pilot, options, match) -> None:
    pytest.importorskip("ipywidgets")
    from cvreport.jupyter.widgets import explore

    with pytest.raises(cvreport.CVReportError, match=match):
        explore(pilot, **options)


@pytest.mark.parametrize("seed", [-1, "x", 1.5])
def test_the_simulator_refuses_a_bad_seed_in_words(seed) -> None:
    from cvreport import simulate

    # numpy's SeedSequence raised ValueError / TypeError
    with pytest.raises(cvreport.CVReportError, match=r"seed must be an integer ≥ 0"):
        simulate.draw("epsilon", "10-fold", reps=2, seed=seed)


def test_the_simulator_refuses_an_empty_list_of_designs() -> None:
    from cvreport import simulate

    with pytest.raises(cvreport.DesignError, match="designs is empty"):  # returned {} silently
        simulate.draw("epsilon", [], reps=2)


@pytest.mark.parametrize(
    "test_options",
    [["paired_ttest_5x2cv"], {"paired_ttest_5x2cv": "greater"}],
    ids=["list", "text-options"],
)
def test_test_options_that_are_no_mapping_of_mappings_are_refused(pilot, test_options) -> None:
    # were AttributeError: 'list' object has no attribute 'items' and dict()'s ValueError
    with pytest.raises(cvreport.CVReportError, match="test_options maps each test's name"):
        cvreport.Report(pilot, tests="paired_ttest_5x2cv", test_options=test_options)


def test_test_options_reach_the_test(pilot) -> None:
    from scipy import stats

    a, b = "logistic_regression", "decision_tree"
    report = cvreport.Report(
        pilot,
        pairs=[(a, b)],
        tests="paired_ttest_5x2cv",
        test_options={"paired_ttest_5x2cv": {"alternative": "less"}},
    )
    # Dietterich's 5×2cv t: the first fold's difference over the pooled variance, df 5
    d = pilot.differences(a, b).to_numpy()
    variances = ((d - d.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    t = d[0, 0] / np.sqrt(variances.mean())
    frame = report.to_frame()
    assert frame["pvalue"].iloc[0] == pytest.approx(stats.t.cdf(t, 5))


def test_a_warning_of_the_command_reads_as_its_errors(tmp_path) -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    frame = cvreport.load_example().assign(doc=lambda d: d["record"] // 4)
    data = tmp_path / "clustered.csv"
    frame.to_csv(data, index=False)
    root = str(Path(cvreport.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": root}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cvreport",
            "report",
            str(data),
            "-f",
            "loss ~ model | replication + fold",
            "--cluster",
            "doc",
            "-o",
            str(tmp_path / "r.md"),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # was "<path>/__main__.py:8: ClusterLeakageWarning: ...\n  sys.exit(main())"
    lines = done.stderr.strip().splitlines()
    assert lines and all(line.startswith("cvreport: warning: ") for line in lines), lines
    assert "clusters lie in two or more folds" in done.stderr


@pytest.mark.parametrize("engine", [None, "duckdb"])
@pytest.mark.parametrize(
    ("bad", "words"),
    [
        (np.nan, "fix their scores (a model that failed on a fold should get its worst score"),
        ("text", "give numeric scores, e.g. convert the column with pandas.to_numeric"),
    ],
    ids=["nan", "text"],
)
def test_per_fold_scores_are_told_about_scores_not_losses(engine, bad, words) -> None:
    # the advice spoke of per-record losses and of '{pred != truth}' formulas
    frame = cvreport.load_example()
    scores = frame.groupby(["replication", "fold", "model"], as_index=False)["loss"].mean()
    scores = scores.rename(columns={"loss": "auc"})
    if isinstance(bad, str):
        scores["auc"] = scores["auc"].astype(str)
    else:
        scores.loc[2, "auc"] = bad
    with pytest.raises(DataError, match=re.escape(words)):
        cvreport.ResultsTable.from_fold_scores(scores, score="auc", engine=engine)


@pytest.mark.parametrize("path", [None, b"report.md", 3, "", "   "])
def test_saving_to_what_is_not_a_path_is_refused_in_words(path, tmp_path, monkeypatch) -> None:
    """Was: pathlib's TypeError for Report.save(None), save(b'...') and the like."""
    from cvreport.jupyter import notebook
    from cvreport.reporting.multi_report import DatasetsReport

    monkeypatch.chdir(tmp_path)
    report = cvreport.Report("loss ~ model | replication + fold", data=cvreport.load_example())
    multi = DatasetsReport(
        cvreport.DatasetsTable.from_formula(
            "loss ~ model | replication + fold | dataset", cvreport.load_example("multi")
        ),
        n_samples=1000,
    )
    saves = (
        lambda: report.save(path),
        lambda: multi.save(path),
        lambda: multi.save_cd(path),
        lambda: notebook.write(path, data="results.csv"),
    )
    for save in saves:
        with pytest.raises(cvreport.CVReportError, match=r"file path|output path is empty"):
            save()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("errors", [[12.0, 15.0, 11.0], [0.1, 1.2, 0.3], [0.1, -0.05, 0.2]])
def test_fold_error_rates_outside_zero_one_are_refused(errors) -> None:
    """Was: arrays.ttest_error([12, 15, 11], p0=0.1) tested percentages as error rates."""
    with pytest.raises(DataError, match="error rates between 0 and 1"):
        cvreport.arrays.ttest_error(errors, p0=0.1)
    # Within [0, 1] the test runs and agrees with scipy's one-sample t test.
    from scipy import stats

    good = np.clip(np.asarray(errors) / max(errors), 0.0, 1.0) * 0.5
    res = cvreport.arrays.ttest_error(good, p0=0.1)
    expected = stats.ttest_1samp(good, 0.1, alternative="greater")
    assert res.statistic == pytest.approx(expected.statistic)
    assert res.pvalue == pytest.approx(expected.pvalue)


@pytest.mark.parametrize("engine", [None, "duckdb"])
def test_a_missing_cluster_column_is_named_as_the_cluster(engine) -> None:
    """Was: '... The formula 'loss ~ model | replication + fold' names them.' for cluster=."""
    with pytest.raises(DataError) as caught:
        cvreport.ResultsTable.from_formula(
            "loss ~ model | replication + fold",
            cvreport.load_example(),
            cluster="doc",
            engine=engine,
        )
    message = str(caught.value)
    assert message.startswith("missing cluster column 'doc'")
    assert "The cluster 'doc' is not among them" in message and "names them" not in message


def test_options_for_a_test_the_report_does_not_run_are_said_to_change_nothing() -> None:
    """Was: Report(test_options={'paired_bootstrap_test': ...}) dropped them without a word."""
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example()
    )
    with pytest.warns(cvreport.UnusedOptionsWarning, match="'paired_bootstrap_test' change"):
        report = cvreport.Report(table, test_options={"paired_bootstrap_test": {"seed": 1}})
    assert list(report.test_names) == ["combined_ftest_5x2cv"]
    # Options for a test that does run are used, and nothing is said.
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", cvreport.UnusedOptionsWarning)
        ran = cvreport.Report(
            table, test_options={"combined_ftest_5x2cv": {"alternative": "two-sided"}}
        )
    assert ran.results[0].pvalue == pytest.approx(report.results[0].pvalue)


@pytest.mark.parametrize("kind", ["holdout", "kfold"])
def test_a_clustered_recommendation_without_a_metric_names_the_loss(kind) -> None:
    """Was: 'the paired difference in None ...' and 'None is a mean of per-record values'."""
    from cvreport.methods.recommendation import recommendation

    reason = recommendation(kind, binary=True, per_record=True, clustered=True).reason
    assert "None" not in reason
    assert "the loss" in reason or reason.startswith("The loss is a mean")
