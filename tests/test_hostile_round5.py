"""Hostile input of round five: flags and masks for counts, sets for ordered things, odd files.

Each test holds inputs that once gave a silent wrong number, a raw exception, a
value read one way on one route and another way on the next, or an option
silently dropped; the expected behaviour is a typed error that says what is
wrong and what to do, or numbers checked against an independent computation.
"""

from __future__ import annotations

import warnings
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score

import cvreport
import cvreport.arrays as arrays
import cvreport.simulate as simulate
from cvreport.cli import main
from cvreport.errors import CVReportError, DataError, DesignError
from tests.test_composition import normalise
from tests.test_hostile_round3 import _predictions

FORMULA = "loss ~ model | replication + fold"
A, B = "logistic_regression", "decision_tree"


@pytest.fixture(scope="module")
def table() -> cvreport.ResultsTable:
    return cvreport.ResultsTable.from_formula(FORMULA, cvreport.load_example())


# ---------------------------------------------------------------- True/False as numbers

_FLAGS = [True, False, True, True, False]


@pytest.mark.parametrize(
    "call",
    [
        lambda: arrays.mcnemar(True, False),
        lambda: arrays.mcnemar(np.bool_(True), np.bool_(False)),
        lambda: arrays.mcnemar(12, 4, n=True),
        lambda: arrays.mcnemar_kfold(_FLAGS, [False] * 5),
        lambda: arrays.mcnemar_kfold(np.array(_FLAGS), [1, 0, 2, 0, 1]),
        lambda: arrays.mcnemar_kfold([3, True, 2, 1, 0], [1, 0, 2, 0, 1]),  # one flag among counts
        lambda: arrays.mcnemar_5x2bcv(np.ones((10, 4), dtype=bool)),
        lambda: arrays.contingency_posteriors(True, False, True, True),
        lambda: arrays.binomial_test(True, 10, 0.1),
        lambda: arrays.normal_test(True, 10, 0.1),
        lambda: arrays.ttest_error(_FLAGS, 0.1),
        lambda: arrays.paired_ttest_kfold(_FLAGS),
        lambda: arrays.sign_test(pd.array(_FLAGS, dtype="boolean")),
        lambda: arrays.wilcoxon_kfold(pd.Series(_FLAGS)),
        lambda: arrays.paired_ttest_5x2cv(np.ones((5, 2), dtype=bool)),
    ],
)
def test_true_and_false_are_no_counts_and_no_differences(call) -> None:
    """Was: mcnemar(True, False) tested b = 1, c = 0; a mask of folds became 0/1 differences."""
    with pytest.raises(DataError, match=r"got True/False .*count it first"):
        call()


def test_counts_given_as_numbers_still_give_scipys_binomial_test() -> None:
    result = arrays.mcnemar(np.int64(12), 4.0, method="exact")
    assert result.pvalue == pytest.approx(stats.binomtest(4, 16, 0.5).pvalue, rel=1e-12)


# ---------------------------------------------------------------- arrays numpy would misread


def test_a_masked_array_is_not_read_with_the_values_under_its_mask() -> None:
    """Was: the masked fold entered the t test as if it were not masked."""
    masked = np.ma.masked_array([0.1, 9.0, 0.3, -0.1], mask=[0, 1, 0, 0])
    with pytest.raises(DataError, match=r"masked array with 1 masked value.*compressed\(\)"):
        arrays.paired_ttest_kfold(masked)
    kept = arrays.paired_ttest_kfold(masked.compressed())
    assert kept.pvalue == pytest.approx(stats.ttest_1samp([0.1, 0.3, -0.1], 0.0).pvalue)


def test_a_masked_array_without_masked_values_is_its_values() -> None:
    values = [0.1, 0.2, 0.3, -0.1]
    plain = np.ma.masked_array(values, mask=[0, 0, 0, 0])
    assert arrays.paired_ttest_kfold(plain).pvalue == pytest.approx(
        stats.ttest_1samp(values, 0.0).pvalue
    )


def test_a_set_of_differences_is_refused_and_a_generator_is_read_in_order() -> None:
    """Was: 'differences must be numeric: float() argument must be ... not 'set''."""
    with pytest.raises(DataError, match=r"got a set .*no order.*drops repeated values"):
        arrays.paired_ttest_kfold({0.1, 0.2, 0.3, -0.1})
    values = [0.1, 0.2, 0.3, -0.1]
    assert arrays.paired_ttest_kfold(v for v in values).pvalue == pytest.approx(
        stats.ttest_1samp(values, 0.0).pvalue
    )


def test_ragged_counts_are_refused_in_words() -> None:
    """Was: numpy's ValueError 'setting an array element with a sequence'."""
    with pytest.raises(DataError, match=r"b and c must be numbers in a flat list"):
        arrays.mcnemar([3], 4)


@pytest.mark.parametrize("missing", [None, np.nan])
def test_delongs_test_refuses_a_missing_label_as_the_bootstrap_does(missing) -> None:
    """Was: TypeError "'<' not supported between 'NoneType' and 'int'" (None), or
    'got 3 distinct label(s): [0.0, 1.0, nan]' (NaN)."""
    truth = [0, 1, missing, 1, 0, 1]
    a, b = [0.1, 0.8, 0.3, 0.6, 0.2, 0.9], [0.2, 0.3, 0.1, 0.5, 0.4, 0.7]
    words = r"missing values \(NaN or None\) in truth: 1, the first at position 2"
    with pytest.raises(DataError, match=words):
        arrays.delong_test(truth, a, b)
    with pytest.raises(DataError, match=words):
        arrays.paired_bootstrap_test(truth, a, b, metric="roc_auc", n_resamples=99)


# ---------------------------------------------------------------- decimals are numbers


def test_decimal_options_give_the_numbers_of_floats(table) -> None:
    """Was: "alpha must be a number between 0 and 1, got Decimal('0.05') (Decimal)" while
    Fraction(1, 20) and Decimal counts were read; conf_int(Decimal) then failed in arithmetic."""
    d = [0.02, -0.01, 0.03, 0.00, 0.01, 0.02, -0.02, 0.01]
    pairs = [
        (
            arrays.binomial_test(3, 10, Decimal("0.1")).pvalue,
            stats.binomtest(3, 10, 0.1, alternative="greater").pvalue,
        ),
        (
            arrays.corrected_resampled_ttest(d, Decimal("0.25")).pvalue,
            arrays.corrected_resampled_ttest(d, 0.25).pvalue,
        ),
        (
            arrays.bayesian_correlated_ttest(d, 0.25, rope=Decimal("0.01")).prob_equivalent,
            arrays.bayesian_correlated_ttest(d, 0.25, rope=0.01).prob_equivalent,
        ),
        (
            arrays.contingency_posteriors(50, 5, 3, 42, prior=Decimal(1), level=Decimal("0.9"))[
                0
            ].interval,
            arrays.contingency_posteriors(50, 5, 3, 42, prior=1, level=0.9)[0].interval,
        ),
        (
            cvreport.paired_ttest_5x2cv(table, A, B).conf_int(Decimal("0.1")),
            cvreport.paired_ttest_5x2cv(table, A, B).conf_int(0.1),
        ),
        (
            cvreport.plan(table, A, B, effect=Decimal("0.02"), alpha=Fraction(1, 20)).best,
            cvreport.plan(table, A, B, effect=0.02, alpha=0.05).best,
        ),
    ]
    for given, expected in pairs:
        assert given == expected
    boot = arrays.paired_bootstrap_test(
        [0, 1, 0, 1] * 5,
        [0, 1, 1, 1] * 5,
        [0, 0, 0, 1] * 5,
        n_resamples=Decimal(199),
        confidence_level=Decimal("0.9"),
        random_state=1,
    )
    same = arrays.paired_bootstrap_test(
        [0, 1, 0, 1] * 5,
        [0, 1, 1, 1] * 5,
        [0, 0, 0, 1] * 5,
        n_resamples=199,
        confidence_level=0.9,
        random_state=1,
    )
    assert boot.conf_int() == same.conf_int() and boot.pvalue == same.pvalue


def test_a_report_at_a_decimal_level_is_the_report_at_that_float(table) -> None:
    given = cvreport.Report(table, alpha=Decimal("0.1")).to_markdown()
    assert given == cvreport.Report(table, alpha=0.1).to_markdown()


# ---------------------------------------------------------------- predictions


def test_score_columns_given_as_a_set_are_refused() -> None:
    """Was: score={'q', 'p'} met the classes in the set's order: the AUC of the wrong class,
    with every difference's sign reversed, without a word."""
    frame = _predictions()
    with pytest.raises(DataError, match=r"score=\['p', 'q'\] is a set, which has no order"):
        cvreport.ResultsTable.from_predictions(frame, truth="y", score={"q", "p"}, metric="roc_auc")


def test_score_columns_given_as_a_generator_are_read_once_in_order() -> None:
    """Was: '0 score columns were given for 2 classes' (the generator read twice)."""
    frame = _predictions()
    table = cvreport.ResultsTable.from_predictions(
        frame, truth="y", score=(c for c in ["q", "p"]), metric="roc_auc"
    )
    fold = frame[(frame.replication == 1) & (frame.fold == 1)]
    expected = roc_auc_score(fold[fold.model == "a"].y, fold[fold.model == "a"].p) - roc_auc_score(
        fold[fold.model == "b"].y, fold[fold.model == "b"].p
    )
    assert table.differences("a", "b").loc[1, 1] == pytest.approx(expected)


def test_an_empty_metric_name_is_refused_not_read_as_the_zero_one_loss() -> None:
    """Was: metric='' gave a table of the 0/1 loss."""
    with pytest.raises(DataError, match="unknown metric ''"):
        cvreport.ResultsTable.from_predictions(
            _predictions(), truth="y", prediction="yhat", metric=""
        )


@pytest.mark.parametrize("engine", [None, "duckdb", "polars"])
@pytest.mark.parametrize("metric", ["accuracy", "f1"])
def test_text_truth_beside_numeric_predictions_is_refused_on_every_engine(engine, metric) -> None:
    """Was: truth '0'/'1' and predictions 0/1: no prediction ever right, accuracy 0 for every
    model and every difference 0, without a word (the 0/1 loss of labels refused it)."""
    frame = _predictions().assign(y=lambda f: f.y.astype(str))
    words = r"truth column 'y' \(.*\) and prediction column 'yhat' \(int64\) hold different kinds"
    with pytest.raises(DataError, match=words):
        cvreport.ResultsTable.from_predictions(
            frame, truth="y", prediction="yhat", metric=metric, engine=engine
        )
    with pytest.raises(DataError, match="hold different kinds of labels"):
        cvreport.ResultsTable.from_predictions(frame, truth="y", prediction="yhat", engine=engine)


@pytest.mark.parametrize("test", [arrays.paired_bootstrap_test, arrays.paired_permutation_test])
def test_text_truth_beside_numeric_predictions_is_refused_by_the_arrays_too(test) -> None:
    """Was: read as the same labels (numpy turned 0 into '0'), unlike the table route."""
    with pytest.raises(DataError, match=r"truth \(<U1\) and predictions a and b .*different kinds"):
        test(["0", "1", "0", "1"] * 5, [0, 1, 1, 1] * 5, [0, 0, 0, 1] * 5, n_resamples=99)


def test_labels_of_one_kind_in_two_dtypes_still_match() -> None:
    frame = _predictions()
    as_floats = frame.assign(y=frame.y.astype(float))
    given = cvreport.ResultsTable.from_predictions(
        as_floats, truth="y", prediction="yhat", metric="accuracy"
    ).differences("a", "b")
    fold = frame[(frame.replication == 1) & (frame.fold == 2)]
    accuracy = {m: float((g.y == g.yhat).mean()) for m, g in fold.groupby("model")}
    assert given.loc[1, 2] == pytest.approx(accuracy["a"] - accuracy["b"])


@pytest.mark.parametrize(
    ("build", "role"),
    [
        (lambda f: cvreport.ResultsTable.from_fold_scores(f, score=None), "score"),
        (lambda f: cvreport.ResultsTable.from_fold_scores(f, score="auc", model=None), "model"),
        (
            lambda f: cvreport.ResultsTable.from_predictions(
                f, truth="y", prediction="yhat", model=None
            ),
            "model",
        ),
        (
            lambda f: cvreport.ResultsTable.from_predictions(f, truth=None, prediction="yhat"),
            "truth",
        ),
    ],
)
def test_a_role_named_none_is_refused_in_words(build, role) -> None:
    """Was: KeyError: None (score=None); keys shown as 'None=1' or "model column None holds
    only 1" (model=None)."""
    frame = _predictions()
    frame["auc"] = frame["p"]
    with pytest.raises(DataError, match=rf"{role}=None, but every table needs its {role} column"):
        build(frame)


# ---------------------------------------------------------------- what a report is given


@pytest.mark.parametrize("given", [5, None, [1], b"loss"])
def test_a_report_of_what_is_no_table_is_refused_in_words(given) -> None:
    """Was: AttributeError "'int' object has no attribute 'models'" from Report and report()."""
    for build in (cvreport.Report, cvreport.report):
        with pytest.raises(DesignError, match="expected a ResultsTable or a formula string"):
            build(given)


@pytest.mark.parametrize("given", ["results.csv", Path("results.csv")])
def test_a_path_given_for_a_table_is_told_how_to_read_it(given) -> None:
    """Was: "the formula 'results.csv' needs data=" (a str), AttributeError (a Path)."""
    words = r"'results.csv' is no formula \(a formula has '~'.*file as data=.*data='results.csv'\)"
    for call in (
        lambda: cvreport.Report(given),
        lambda: cvreport.report(given),
        lambda: cvreport.paired_ttest_5x2cv(given, A, B),
    ):
        with pytest.raises(DesignError, match=words):
            call()


def test_the_formula_with_the_file_as_data_is_the_report_of_the_frame(tmp_path) -> None:
    frame = cvreport.load_example()
    path = tmp_path / "results.csv"
    frame.to_csv(path, index=False)
    from_file = cvreport.paired_ttest_5x2cv(FORMULA, A, B, data=str(path))
    from_frame = cvreport.paired_ttest_5x2cv(FORMULA, A, B, data=frame)
    assert (from_file.statistic, from_file.pvalue) == (from_frame.statistic, from_frame.pvalue)
    assert cvreport.Report(FORMULA, data=str(path)).analysis.pairs == (
        (A, B),
        (A, "naive_bayes"),
        (B, "naive_bayes"),
    )


def test_a_word_without_a_tilde_beside_data_is_still_a_formula_error() -> None:
    with pytest.raises(cvreport.FormulaError, match="there is no '~'"):
        cvreport.Report("loss", data=cvreport.load_example())


@pytest.mark.parametrize("given", [5, None, "results.csv"])
def test_compare_datasets_refuses_what_is_no_table_of_scores(given) -> None:
    """Was: pandas' 'DataFrame constructor not properly called!' (with direction=), or 'a frame
    of summary scores needs direction=' for what is no frame at all."""
    for direction in (None, "higher"):
        with pytest.raises(DataError, match="needs a DatasetsTable or a data sets × models"):
            cvreport.compare_datasets(given, direction=direction)


def test_pairs_given_as_a_generator_are_read_once(table) -> None:
    """Was: TypeError "object of type 'generator' has no len()"."""
    report = cvreport.Report(table, pairs=((A, m) for m in (B, "naive_bayes")))
    assert report.analysis.pairs == ((A, B), (A, "naive_bayes"))


@pytest.mark.parametrize(
    ("pairs", "words"),
    [
        (5, r"pairs must be a list of \(A, B\) pairs, got 5 \(int\)"),
        ([{A, B}], r"each pair must be an ordered \(A, B\).*a set or a mapping has no order"),
        ([{A: B}], r"each pair must be an ordered \(A, B\)"),
    ],
)
def test_pairs_that_are_no_ordered_pairs_are_refused(table, pairs, words) -> None:
    """Was: TypeError (len() of an int; a set is not subscriptable)."""
    with pytest.raises(CVReportError, match=words):
        cvreport.Report(table, pairs=pairs)


# ---------------------------------------------------------------- the simulator


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"reps": True}, "reps must be a positive integer, got True"),
        ({"reps": 20.5}, "reps must be a positive integer, got 20.5"),
        ({"chunk_size": 0}, "chunk_size must be a positive integer, got 0"),
        ({"chunk_size": 2.5}, "chunk_size must be a positive integer, got 2.5"),
        ({"n_jobs": "2"}, "n_jobs must be a positive integer, got the text '2'"),
        ({"common_shuffle": "no"}, "common_shuffle must be True or False, got the text 'no'"),
        ({"progress": "no"}, "progress must be True or False, got the text 'no'"),
        ({"epsilon": "0.1"}, "epsilon must be a finite number, got the text '0.1'"),
        ({"epsilon": float("nan")}, "epsilon must be a finite number, got nan"),
        ({"n": 300.5}, "n must be a whole number of records, got 300.5"),
    ],
)
def test_the_simulator_refuses_careless_numbers_and_switches(options, words) -> None:
    """Was: reps=True ran one replication, chunk_size=0 the default, common_shuffle='no' a
    common shuffle, epsilon='0.1' a TypeError in numpy and epsilon=nan a table of NaN."""
    arguments = {"reps": 20, "tests": ["paired_ttest_5x2cv"], "designs": ["random 5x2"], "seed": 0}
    with pytest.raises(CVReportError, match=words):
        simulate.calibrate("epsilon", **{**arguments, **options})


@pytest.mark.parametrize(
    ("values", "words"),
    [
        (["0.1"], "values must be finite numbers, got the text '0.1'"),
        ([True], "values must be finite numbers, got True"),
        ([float("nan")], "values must be finite numbers, got nan"),
    ],
)
def test_the_power_curve_refuses_values_that_are_no_numbers(values, words) -> None:
    with pytest.raises(CVReportError, match=words):
        simulate.power_curve("epsilon", values, reps=20, tests=["paired_ttest_5x2cv"], seed=0)


def test_the_simulator_reads_decimal_and_numpy_numbers_as_their_floats() -> None:
    """Was: TypeError "unsupported operand type(s) for -: 'float' and 'decimal.Decimal'"."""
    arguments = {"tests": ["paired_ttest_5x2cv"], "designs": ["random 5x2"], "seed": 3}
    given = simulate.calibrate(
        "epsilon", reps=Decimal(40), epsilon=np.float32(0.25), n=np.int64(100), **arguments
    )
    plain = simulate.calibrate("epsilon", reps=40, epsilon=0.25, n=100, **arguments)
    assert given["rate"].tolist() == plain["rate"].tolist()
    drawn = simulate.draw("epsilon", ["10-fold"], reps=np.int64(2), seed=1)["10-fold"]
    assert drawn.reps == 2
    with pytest.raises(CVReportError, match="reps must be a positive integer, got True"):
        simulate.draw("epsilon", ["10-fold"], reps=True)


# ---------------------------------------------------------------- files read by the command


def _write_with_a_repeated_name(path: Path) -> None:
    # the truth column renamed 'loss': two columns named 'loss', the first one the truth
    frame = cvreport.load_example()
    text = frame.to_csv(index=False)
    header, rest = text.split("\n", 1)
    path.write_text(header.replace("truth", "loss") + "\n" + rest)


@pytest.mark.parametrize(
    ("command", "engine"),
    [("report", "pandas"), ("report", "duckdb"), ("report", "polars"), ("notebook", None)],
)
def test_a_csv_with_a_repeated_column_name_is_refused_on_every_engine(
    tmp_path, capsys, engine, command
) -> None:
    """Was: pandas renamed the second 'loss' to 'loss.1' and the report tested the first one
    (the truth) without a word; DuckDB and Polars refused the file."""
    data = tmp_path / "repeated.csv"
    _write_with_a_repeated_name(data)
    out = tmp_path / ("r.md" if command == "report" else "r.ipynb")
    flags = ["--engine", engine] if engine else []
    status = main([command, str(data), "-f", FORMULA, "-o", str(out), *flags])
    err = capsys.readouterr().err
    assert status == 1, err
    assert f"the CSV file {str(data)!r} has several columns named 'loss'" in err
    assert not out.exists()


def test_read_results_refuses_a_parquet_file_with_a_repeated_column_name(tmp_path) -> None:
    """Was: "cannot read ...: Multiple matches for FieldRef.Name(loss) in loss: int64 ..."."""
    path = tmp_path / "repeated.parquet"
    pq.write_table(pa.table([pa.array([1, 2]), pa.array([3, 4])], names=["loss", "loss"]), path)
    from cvreport.data.io import read_results

    with pytest.raises(DataError, match="has several columns named 'loss'; rename them"):
        read_results(path)


@pytest.mark.parametrize("engine", ["pandas", "duckdb", "polars"])
def test_a_parquet_file_without_rows_is_refused_alike_on_every_engine(
    tmp_path, capsys, engine
) -> None:
    """Was: 'the table has no rows, so loss ... is empty' with pandas, and with DuckDB and
    Polars 'the Parquet file ... has no rows; give the file that holds the results ...'."""
    data = tmp_path / "empty.parquet"
    cvreport.load_example().iloc[:0].to_parquet(data)
    out = tmp_path / "r.md"
    status = main(["report", str(data), "-f", FORMULA, "-o", str(out), "--engine", engine])
    err = capsys.readouterr().err
    assert status == 1
    assert f"the Parquet file {str(data)!r} has no rows; give the file that holds" in err
    assert not out.exists()


def test_a_csv_with_a_byte_order_mark_gives_the_report_of_the_plain_file(tmp_path) -> None:
    plain, marked = tmp_path / "plain.csv", tmp_path / "marked.csv"
    cvreport.load_example().to_csv(plain, index=False)
    marked.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    outputs = []
    for data in (plain, marked):
        out = tmp_path / f"{data.stem}.md"
        assert main(["report", str(data), "-f", FORMULA, "-o", str(out), "--title", "t"]) == 0
        outputs.append(out.read_text())
    # the same report but for the source line, which names each file
    assert outputs[0] != outputs[1] and normalise(outputs[0]) == normalise(outputs[1])


@pytest.mark.parametrize(
    ("command", "flags", "words"),
    [
        ("report", ["-o", "{a}", "-o", "{b}"], "-o/--output was given twice"),
        ("report", ["-o", "{a}", "-f", "x ~ model | fold"], "-f/--formula was given twice"),
        ("report", ["-o", "{a}", "--alpha", "0.05", "--alpha", "0.1"], "--alpha was given twice"),
        ("notebook", ["-o", "{a}", "-o", "{b}"], "-o/--output was given twice"),
        ("datasets", ["-o", "{a}", "--engine", "pandas", "--engine", "duckdb"], "--engine"),
    ],
)
def test_a_flag_given_twice_is_refused_not_overridden(tmp_path, capsys, command, flags, words):
    """Was: the last one silently won: -o a.md -o b.md wrote b.md only, -f A -f B used B."""
    data = tmp_path / "d.csv"
    frame = cvreport.load_example("multi" if command == "datasets" else "random")
    frame.to_csv(data, index=False)
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    formula = "loss ~ model | replication + fold" + (" | dataset" if command == "datasets" else "")
    given = [f.format(a=a, b=b) for f in flags]
    with pytest.raises(SystemExit) as stop:
        main([command, str(data), "-f", formula, *given])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert words in err and "give it once" in err
    assert not a.exists() and not b.exists()


def test_the_plan_command_refuses_a_flag_given_twice(tmp_path, capsys) -> None:
    data = tmp_path / "pilot.csv"
    cvreport.load_example().to_csv(data, index=False)
    with pytest.raises(SystemExit) as stop:
        main(["plan", str(data), A, B, "-f", FORMULA, "--effect", "0.01", "--effect", "0.02"])
    assert stop.value.code == 2
    assert "--effect was given twice (0.01 and 0.02); give it once" in capsys.readouterr().err


def test_flags_that_collect_values_still_collect_them(tmp_path, capsys) -> None:
    out = tmp_path / "r.md"
    pairs = ["--pairs", f"{A}:{B}", "--pairs", f"{A}:naive_bayes"]
    assert main(["report", "--example", "-o", str(out), *pairs]) == 0
    assert "on 2 pairs" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("command", "flags"),
    [
        ("report", ["-f", FORMULA, "-o", "{out}.md"]),
        ("report", ["-f", FORMULA, "-o", "{out}.md", "--engine", "duckdb"]),
        ("notebook", ["-f", FORMULA, "-o", "{out}.ipynb"]),
        ("datasets", ["-f", FORMULA + " | dataset", "-o", "{out}.md"]),
        ("plan", [A, B, "-f", FORMULA, "--effect", "0.01"]),
    ],
)
def test_a_folder_given_as_data_is_named_a_folder_by_every_command(
    tmp_path, capsys, command, flags
) -> None:
    """Was: report, datasets and plan said "cannot read 'results': the data must be a .csv or
    .parquet file", notebook and the DuckDB route that it is a folder and what to give."""
    folder = tmp_path / "results"
    folder.mkdir()
    out = tmp_path / "out"
    status = main([command, str(folder), *[f.format(out=out) for f in flags]])
    err = capsys.readouterr().err
    assert status == 1
    assert f"DATA {str(folder)!r} is a folder, not a file of results; give the files in it" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"]


@pytest.mark.parametrize("command", ["report", "notebook"])
def test_an_empty_metric_on_the_command_line_is_refused_as_the_api_refuses_it(
    tmp_path, capsys, command
) -> None:
    """Was: "--prediction name(s) the columns of a metric: add --metric NAME" after --metric ''."""
    data = tmp_path / "predictions.csv"
    _predictions().to_csv(data, index=False)
    out = tmp_path / ("r.md" if command == "report" else "r.ipynb")
    formula = "y ~ model | replication + fold"
    status = main([command, str(data), "-f", formula, "--metric", "", "--prediction", "yhat",
                   "-o", str(out)])  # fmt: skip
    err = capsys.readouterr().err
    assert status == 1 and "unknown metric ''; use one of 'accuracy'" in err
    assert not out.exists()


def _one_fold_without_positives() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for fold in range(5):
        for r in range(20):
            y = 0 if fold == 0 else int(rng.integers(0, 2))
            for model in "AB":
                pred = y if rng.random() < 0.8 else 1 - y
                pred = 0 if (fold, model) == (0, "A") else pred
                rows.append(
                    {"replication": 0, "fold": fold, "record": fold * 20 + r, "model": model,
                     "y": y, "p": pred}
                )  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("metric", "undefined", "why"),
    [
        ("f1", 1, "no record of the positive class 1 is in the truth or the predictions"),
        ("precision", 1, "no record was predicted as the positive class 1"),
        ("recall", 2, "no record of the positive class 1 is in the truth"),
        ("matthews_corrcoef", 2, "the truth or the predictions hold one class only"),
    ],
)
def test_a_metric_undefined_on_a_fold_says_where_it_counts_as_0(metric, undefined, why):
    from sklearn import metrics as sk

    frame = _one_fold_without_positives()
    with pytest.warns(cvreport.errors.DegenerateStatisticWarning) as caught:
        table = cvreport.ResultsTable.from_predictions(
            frame, truth="y", prediction="p", metric=metric
        )
    said = " ".join(str(w.message) for w in caught if "undefined" in str(w.message))
    assert f"undefined in {undefined} of the 10 per-fold values" in said and why in said
    assert "replication 0, fold 0, model 'A'" in said
    # every per-fold value is scikit-learn's, 0 where the metric is undefined
    function = {
        "f1": lambda y, p: sk.f1_score(y, p, zero_division=0),
        "precision": lambda y, p: sk.precision_score(y, p, zero_division=0),
        "recall": lambda y, p: sk.recall_score(y, p, zero_division=0),
        "matthews_corrcoef": sk.matthews_corrcoef,
    }[metric]
    expected = [
        [function(cell.y, cell.p) for _, cell in frame[frame.fold == fold].groupby("model")]
        for fold in range(5)
    ]
    assert table.models == ("A", "B")
    assert -table.stats.means[0] == pytest.approx(np.array(expected))  # losses are −score
    assert expected[0][0] == 0.0


def test_a_metric_defined_on_every_fold_warns_nothing():
    frame = _one_fold_without_positives()
    with warnings.catch_warnings():
        warnings.simplefilter("error", cvreport.errors.DegenerateStatisticWarning)
        cvreport.ResultsTable.from_predictions(frame, truth="y", prediction="p", metric="accuracy")
        cvreport.ResultsTable.from_predictions(frame, truth="y", prediction="p", metric="f1_macro")
