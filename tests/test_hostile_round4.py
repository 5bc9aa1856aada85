"""Hostile input of round four: repeated pairs, percentages, numbers and switches given as text.

Each test holds inputs that once gave a silent merge, a wrong number, a raw
exception or a value read differently on two routes; the expected behaviour is a
typed error that says what is wrong and what to do, or numbers checked against
an independent computation.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import cvreport
import cvreport.arrays as arrays
from cvreport.cli import main
from cvreport.errors import CVReportError, DataError

FORMULA = "loss ~ model | replication + fold"


@pytest.fixture(scope="module")
def table() -> cvreport.ResultsTable:
    return cvreport.ResultsTable.from_formula(FORMULA, cvreport.load_example())


@pytest.fixture(scope="module")
def multi() -> cvreport.DatasetsTable:
    return cvreport.DatasetsTable.from_formula(
        "loss ~ model | replication + fold | dataset", cvreport.load_example("multi")
    )


def _fold_scores(scale: float = 1.0, name: str = "auc") -> pd.DataFrame:
    """One accuracy-like score per (replication, fold, model) of the example, times ``scale``."""
    frame = cvreport.load_example()
    scores = frame.groupby(["replication", "fold", "model"], as_index=False)["loss"].mean()
    scores[name] = (1.0 - scores.pop("loss")) * scale
    return scores


# ---------------------------------------------------------------- a pair given twice


def test_a_pair_given_twice_to_the_report_is_refused(table) -> None:
    # was merged into one comparison without a word (the reversed pair was already refused)
    pair = ("logistic_regression", "naive_bayes")
    with pytest.raises(
        CVReportError,
        match=r"the pair \('logistic_regression', 'naive_bayes'\) "
        r"is given twice; compare each pair once",
    ):
        cvreport.Report(table, pairs=[pair, ("decision_tree", "naive_bayes"), pair])
    # one pair, once: its p-value is the test's own
    report = cvreport.Report(table, pairs=[pair])
    assert [r.pvalue for r in report.results] == [
        cvreport.combined_ftest_5x2cv(table, *pair).pvalue
    ]


def test_a_pair_given_twice_on_the_command_line_is_refused(tmp_path, capsys) -> None:
    data = tmp_path / "losses.csv"
    cvreport.load_example().to_csv(data, index=False)
    out = tmp_path / "r.md"
    pair = "logistic_regression:naive_bayes"
    status = main(["report", str(data), "-f", FORMULA, "-o", str(out), "--pairs", pair, pair])
    err = capsys.readouterr().err
    assert status == 1
    assert f"--pairs {pair} is given twice; name each pair once" in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()


# ---------------------------------------------------------------- bounded metrics


@pytest.mark.parametrize("engine", [None, "duckdb"])
@pytest.mark.parametrize("name", ["auc", "accuracy", "test_roc_auc", "val_accuracy", "F1"])
def test_per_fold_percentages_of_a_bounded_metric_are_refused(engine, name) -> None:
    # was: an AUC of 98.6 taken as a difference scale 100 times too large
    scores = _fold_scores(100.0, name)
    with pytest.raises(
        DataError,
        match=r"outside \[0, 1\].*look like percentages: divide the "
        r"column by 100",
    ):
        cvreport.ResultsTable.from_fold_scores(scores, score=name, engine=engine)
    with pytest.raises(DataError, match="divide the column by 100"):
        cvreport.ResultsTable.from_formula(
            f"{name} ~ model | replication + fold", scores, per_fold=True, engine=engine
        )


def test_a_correlation_metric_has_its_own_range() -> None:
    scores = _fold_scores(1.0, "mcc")
    scores["mcc"] = 10 * scores["mcc"] - 9.5  # some values below 0, all within [-1, 1]
    assert (scores["mcc"] < 0).any()
    cvreport.ResultsTable.from_fold_scores(scores, score="mcc")
    scores["mcc"] *= 100
    with pytest.raises(DataError, match=r"outside \[-1, 1\], the range of Matthews"):
        cvreport.ResultsTable.from_fold_scores(scores, score="mcc")


def test_an_auc_below_zero_is_refused_without_the_percentage_advice() -> None:
    scores = _fold_scores(1.0)
    scores.loc[0, "auc"] = -0.2
    with pytest.raises(DataError, match=r"1 of 30 values outside \[0, 1\].*fix those values") as e:
        cvreport.ResultsTable.from_fold_scores(scores, score="auc")
    assert "percentages" not in str(e.value)


def test_per_fold_percentages_on_the_command_line_are_refused(tmp_path, capsys) -> None:
    data = tmp_path / "scores.csv"
    _fold_scores(100.0).to_csv(data, index=False)
    out = tmp_path / "r.md"
    argv = ["report", str(data), "-f", "auc ~ model | replication + fold", "--per-fold"]
    status = main([*argv, "-o", str(out)])
    err = capsys.readouterr().err
    assert status == 1 and "divide the column by 100" in err and not out.exists()


def test_scores_of_a_name_no_metric_has_stay_unrestricted() -> None:
    # a score of another name keeps its scale: the paired t test of scipy on its differences
    scores = _fold_scores(100.0, "points")
    table = cvreport.ResultsTable.from_fold_scores(scores, score="points", direction="higher")
    wide = scores.pivot_table(index=["replication", "fold"], columns="model", values="points")
    d = (wide["logistic_regression"] - wide["naive_bayes"]).to_numpy()
    got = table.differences("logistic_regression", "naive_bayes").to_numpy().ravel()
    np.testing.assert_allclose(got, d, rtol=1e-12)
    assert np.abs(d).max() > 1  # on the scale given, not divided by 100


# ---------------------------------------------------------------- numbers given as text

_DIFFERENCES = np.array([0.021, 0.013, -0.004, 0.030, 0.017, 0.008, 0.025, -0.002, 0.011, 0.019])


def _numeric_calls(table):
    d52 = _DIFFERENCES.reshape(5, 2)
    return {
        "p0 (array)": lambda v: arrays.binomial_test(10, 100, p0=v),
        "p0 (normal)": lambda v: arrays.normal_test(10, 100, p0=v),
        "p0 (t)": lambda v: arrays.ttest_error([0.1, 0.2, 0.15], p0=v),
        "p0 (table)": lambda v: cvreport.binomial_test(table, "naive_bayes", p0=v),
        "rope": lambda v: arrays.bayesian_correlated_ttest(_DIFFERENCES, 0.1, rope=v),
        "test_train_ratio (bayes)": lambda v: arrays.bayesian_correlated_ttest(_DIFFERENCES, v),
        "test_train_ratio (kfold)": lambda v: arrays.corrected_repeated_kfold_ttest(
            _DIFFERENCES, v
        ),
        "test_train_ratio (resampled)": lambda v: arrays.corrected_resampled_ttest(_DIFFERENCES, v),
        "test_train_ratio (table)": lambda v: cvreport.corrected_repeated_kfold_ttest(
            table, "naive_bayes", "decision_tree", test_train_ratio=v
        ),
        "rho1": lambda v: arrays.calibrated_ftest_5x2cv(d52, rho1=v),
        "prior": lambda v: arrays.contingency_posteriors(3, 4, 5, 6, prior=v),
        "level": lambda v: arrays.contingency_posteriors(3, 4, 5, 6, level=v),
        "error_a": lambda v: arrays.proportion_test(v, 0.2, 100),
        "n (proportion)": lambda v: arrays.proportion_test(0.1, 0.2, v),
        "n_sim": lambda v: cvreport.overlap_quantile(100, 5, 0.05, method="simulate", n_sim=v),
        "alpha": lambda v: cvreport.Report(table, alpha=v),
    }


@pytest.mark.parametrize("value", ["0.1", "3", True])
@pytest.mark.parametrize(
    "option",
    [
        "p0 (array)",
        "p0 (normal)",
        "p0 (t)",
        "p0 (table)",
        "rope",
        "test_train_ratio (bayes)",
        "test_train_ratio (kfold)",
        "test_train_ratio (resampled)",
        "test_train_ratio (table)",
        "rho1",
        "prior",
        "level",
        "error_a",
        "n (proportion)",
        "n_sim",
        "alpha",
    ],
)
def test_a_numeric_option_given_as_text_or_bool_is_refused_in_words(table, option, value) -> None:
    # was: p0='0.1', rope='0.1', test_train_ratio='0.1', rho1='0.1', error_a='0.1' read through
    # float() while alpha='0.05' was refused; prior='1', n='100', n_sim='100' raised a raw
    # TypeError; rope=True and test_train_ratio=True were read as 1.0
    call = _numeric_calls(table)[option]
    name = option.split(" (")[0]
    words = "got the text" if isinstance(value, str) else "got True"
    with pytest.raises(CVReportError, match=rf"^{name} must be .*{words}"):
        call(value)


def test_numbers_of_numpy_and_fractions_are_numbers(table, multi) -> None:
    # compare_datasets(rope=np.float32(...)) and plan(effect=np.float32(...)) were refused
    # while alpha=np.float32(0.05) was taken
    rope = np.float32(0.02)
    with_numpy = cvreport.compare_datasets(multi, rope=rope, n_samples=2000, seed=1)
    with_float = cvreport.compare_datasets(multi, rope=float(rope), n_samples=2000, seed=1)
    assert [r.p_a_better for r in with_numpy.bayesian] == [
        r.p_a_better for r in with_float.bayesian
    ]
    pair = ("naive_bayes", "decision_tree")
    effect = np.float32(0.02)
    assert (
        cvreport.plan(table, *pair, effect=effect)
        .to_frame()
        .equals(cvreport.plan(table, *pair, effect=float(effect)).to_frame())
    )
    by_fraction = arrays.binomial_test(10, 100, p0=Fraction(1, 10))
    assert by_fraction.pvalue == pytest.approx(stats.binomtest(10, 100, 0.1, "greater").pvalue)


@pytest.mark.parametrize(
    "call",
    [
        lambda: arrays.mcnemar("3", 5),
        lambda: arrays.binomial_test("3", 10, 0.1),
        lambda: arrays.paired_ttest_kfold(["0.01", "0.02", "-0.01"]),
        lambda: arrays.sign_test(np.array(["0.01", "0.02", "-0.01"])),
        lambda: arrays.wilcoxon_kfold(pd.Series(["0.01", "0.02", "-0.01"], dtype="string")),
        lambda: arrays.clustered_paired_test(["0.1", "0.2", "-0.1", "0.3"], [1, 1, 2, 2]),
    ],
    ids=["mcnemar", "binomial", "kfold", "sign", "wilcoxon", "clustered"],
)
def test_arrays_of_text_are_refused_before_numpy_reads_them(call) -> None:
    # was: numpy's float conversion read '0.01' as 0.01 on these routes only
    with pytest.raises(DataError, match=r"must be numbers, got the text '.*'; convert it first"):
        call()


# ---------------------------------------------------------------- switches given as text


def test_a_switch_given_as_text_is_refused(multi) -> None:
    # was: "no" read as True (the tie correction applied, the G/(G − 1) factor applied)
    with pytest.raises(CVReportError, match=r"tie_correction must be True or False, got the text"):
        cvreport.compare_datasets(multi, tie_correction="no", n_samples=1000)
    d, clusters = [0.1, 0.2, -0.1, 0.3, 0.05, 0.15], [1, 1, 2, 2, 3, 3]
    for bad in ("no", 0):
        with pytest.raises(CVReportError, match=r"small_sample_correction must be True or False"):
            arrays.clustered_paired_test(d, clusters, small_sample_correction=bad)
    with pytest.raises(CVReportError, match=r"per_fold must be True or False, got the text"):
        cvreport.ResultsTable.from_formula(FORMULA, cvreport.load_example(), per_fold="no")


def test_the_cluster_robust_test_without_correction_is_the_hand_computation() -> None:
    d = np.array([0.1, 0.2, -0.1, 0.3, 0.05, 0.15])
    clusters = np.array([1, 1, 2, 2, 3, 3])
    residual = d - d.mean()
    sums = np.array([residual[clusters == g].sum() for g in (1, 2, 3)])
    for correction, factor in ((False, 1.0), (np.bool_(True), 3 / 2)):
        se = math.sqrt(factor * float(np.sum(sums**2)) / d.size**2)
        result = arrays.clustered_paired_test(d, clusters, small_sample_correction=correction)
        assert result.statistic == pytest.approx(d.mean() / se)


def test_an_accuracy_just_above_one_is_a_wrong_value_not_a_percentage() -> None:
    scores = _fold_scores(1.0, "accuracy")
    scores.loc[4, "accuracy"] = 1.02
    with pytest.raises(DataError, match=r"1 of 30 values outside \[0, 1\].*fix those values") as e:
        cvreport.ResultsTable.from_fold_scores(scores, score="accuracy")
    assert "percentages" not in str(e.value)


# ---------------------------------------------------------------- labels and counts of the arrays


@pytest.mark.parametrize(
    ("folds", "clusters", "match"),
    [
        ([0, 0, 1, 1], [1, np.nan, 2, 2], "the cluster labels hold missing values"),
        ([0, np.nan, 1, 1], [1, 1, 2, 2], "folds must hold whole fold positions"),
        ([0, 0, 1, 1], [1, 2, 3], "folds and clusters describe different numbers of records"),
        (np.zeros((2, 2, 2)), [1, 2], r"folds must be an \(n_records, m\) array"),
    ],
)
def test_audit_clusters_refuses_what_it_cannot_read_in_words(folds, clusters, match) -> None:
    # was: IndexError 'tuple index out of range' for every one of them
    with pytest.raises(DataError, match=match):
        cvreport.audit_clusters(np.asarray(folds), np.asarray(clusters, dtype=object))


def test_audit_clusters_reads_one_replication_given_as_one_column() -> None:
    audit = cvreport.audit_clusters(np.array([0, 0, 1, 1, 1]), np.array(["a", "b", "b", "c", "c"]))
    assert audit.n_clusters == 3 and not audit.ok
    assert audit.straddling["cluster"].tolist() == ["b"]


@pytest.mark.parametrize("missing", [np.nan, None])
def test_the_cv_interval_refuses_a_missing_fold_label(missing) -> None:
    # was: the NaN record made a fold of its own (or joined a fold) without a word
    folds = np.array([1, missing, 2, 2, 1, 2], dtype=object)
    with pytest.raises(
        DataError, match=r"the fold labels hold 1 missing value\(s\) \(positions 1\)"
    ):
        arrays.cv_confidence_interval(_DIFFERENCES[:6], folds)
    reps = np.array([1, 1, 1, missing, 2, 2], dtype=object)
    with pytest.raises(DataError, match="the replication labels hold 1 missing value"):
        arrays.cv_confidence_interval(
            _DIFFERENCES[:6], [1, 1, 2, 2, 1, 2], replications=reps, repeated="average"
        )


def test_the_power_curve_takes_whole_numbers_of_folds_only(table) -> None:
    pair = ("naive_bayes", "decision_tree")
    # was: folds=["5"] drawn as 5; folds=[1.5] refused as "got [1]"; replications=[True] as 1
    with pytest.raises(CVReportError, match=r"folds must be integers of at least 2, got 1\.5"):
        cvreport.power_curve(table, *pair, effect=0.01, folds=[1.5])
    with pytest.raises(CVReportError, match=r"folds must be .*got the text '5'"):
        cvreport.power_curve(table, *pair, effect=0.01, folds=["5"])
    with pytest.raises(CVReportError, match=r"replications must be .*got True"):
        cvreport.power_curve(table, *pair, effect=0.01, replications=[True])
    whole = cvreport.power_curve(
        table, *pair, effect=0.01, folds=[5.0, 10], tests=["corrected_repeated_kfold_ttest"]
    )
    same = cvreport.power_curve(
        table, *pair, effect=0.01, folds=[5, 10], tests=["corrected_repeated_kfold_ttest"]
    )
    assert whole.to_frame().equals(same.to_frame())


@pytest.mark.parametrize("digits", [1.5, "3", True, -1])
def test_the_digits_of_the_many_data_sets_report_are_a_whole_number(multi, digits) -> None:
    # was: 1.5 and '3' and True read through int(); -1 raised format's raw ValueError on rendering
    with pytest.raises(CVReportError, match="digits must be a whole number of decimals ≥ 0"):
        cvreport.DatasetsReport(multi, digits=digits, n_samples=1000)


# ---------------------------------------------------------------- roles


@pytest.mark.parametrize("engine", [None, "duckdb"])
@pytest.mark.parametrize(
    "build",
    [
        lambda frame, engine: cvreport.ResultsTable(frame, record=None, engine=engine),
        lambda frame, engine: cvreport.ResultsTable.from_formula(
            FORMULA, frame, record=None, engine=engine
        ),
        lambda frame, engine: cvreport.ResultsTable.from_predictions(
            frame, truth="truth", prediction="prediction", record=None, engine=engine
        ),
    ],
    ids=["columns", "formula", "predictions"],
)
def test_record_none_is_refused_in_words(build, engine) -> None:
    # was: KeyError 'None' in memory, "missing record column 'None'" or the engine's
    # "selected columns were not found" elsewhere
    with pytest.raises(DataError, match=r"record=None, but per-record values need the column"):
        build(cvreport.load_example(), engine)


def test_higher_is_better_given_as_text_is_refused() -> None:
    # was: higher_is_better="no" read as True: a loss column of a neutral name tested as a score
    frame = cvreport.load_example().rename(columns={"loss": "y"})
    with (
        pytest.warns(DeprecationWarning),
        pytest.raises(
            CVReportError, match=r"higher_is_better must be True or False, got the text 'no'"
        ),
    ):
        cvreport.ResultsTable.from_formula(
            "y ~ model | replication + fold", frame, higher_is_better="no"
        )
    with pytest.warns(DeprecationWarning):
        table = cvreport.ResultsTable.from_formula(
            "y ~ model | replication + fold", frame, higher_is_better=False
        )
    assert table.metric.direction == "lower"


# ---------------------------------------------------------------- the plan command's files

_PLAN = ["naive_bayes", "decision_tree", "-f", FORMULA, "--effect", "0.01"]


def test_the_plan_command_never_writes_over_its_data(tmp_path, capsys) -> None:
    # was: --csv DATA --overwrite replaced the pilot's data by the table of powers
    data = tmp_path / "pilot.csv"
    cvreport.load_example().to_csv(data, index=False)
    before = data.read_bytes()
    status = main(["plan", str(data), *_PLAN, "--csv", str(data), "--overwrite"])
    err = capsys.readouterr().err
    assert status == 1 and "is the data file read" in err
    assert data.read_bytes() == before


def test_the_plan_command_refuses_one_file_for_two_outputs(tmp_path, capsys) -> None:
    # was: the SVG written over the CSV just written, and "wrote" said of both
    data = tmp_path / "pilot.csv"
    cvreport.load_example().to_csv(data, index=False)
    out = tmp_path / "plan.csv"
    status = main(["plan", str(data), *_PLAN, "--csv", str(out), "--svg", str(out)])
    err = capsys.readouterr().err
    assert status == 1 and "--svg and --csv name the same file" in err
    assert not out.exists()


def test_a_failed_plan_command_writes_no_file(tmp_path, capsys) -> None:
    # was: the CSV written, then "--svg: a single hold-out split ..." and status 1
    frame = cvreport.load_example()
    data = tmp_path / "holdout.csv"
    frame[(frame["replication"] == 1) & (frame["fold"] == 1)].to_csv(data, index=False)
    csv, svg = tmp_path / "plan.csv", tmp_path / "plan.svg"
    status = main(["plan", str(data), *_PLAN, "--csv", str(csv), "--svg", str(svg)])
    err = capsys.readouterr().err
    assert status == 1 and "a single hold-out split gives no variance" in err
    assert not csv.exists() and not svg.exists()


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--samples", "0"], "--samples must be a positive number of draws, got 0"),
        (["--seed", "-1"], "--seed must be an integer ≥ 0, got -1"),
        (["--rope", "nan"], "--rope must be a number ≥ 0 in the metric's units"),
    ],
)
def test_the_datasets_command_names_its_flags(flags, words, tmp_path, capsys) -> None:
    # was: "n_samples must be a positive integer", "seed must be ..." (the keywords of the
    # API, not the flags typed), said only after the data were read
    out = tmp_path / "d.md"
    status = main(["datasets", "--example", "-o", str(out), *flags])
    err = capsys.readouterr().err
    assert status == 1 and words in err and not out.exists()


# ---------------------------------------------------------------- collect


@pytest.fixture(scope="module")
def small_problem():
    from sklearn.datasets import load_breast_cancer
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_breast_cancer(return_X_y=True)
    models = {"nb": GaussianNB(), "tree": DecisionTreeClassifier(max_depth=2, random_state=0)}
    return models, X[:120], y[:120]


@pytest.mark.parametrize("cv", ["5", True, 1, 5.0])
def test_collect_refuses_a_number_of_folds_it_cannot_use(small_problem, cv) -> None:
    # was: sklearn's raw ValueError ("Expected `cv` as an integer ..." or "n_splits=1")
    models, X, y = small_problem
    with pytest.raises(CVReportError, match=r"cv must be a splitter .* or an int number of folds"):
        cvreport.collect(models, X, y, cv=cv)


def test_collect_refuses_groups_of_another_length(small_problem) -> None:
    # was: sklearn's "Found input variables with inconsistent numbers of samples"
    from sklearn.model_selection import GroupKFold

    models, X, y = small_problem
    with pytest.raises(DataError, match="groups has 2 labels but X has 120 rows"):
        cvreport.collect(models, X, y, cv=GroupKFold(3), groups=[1, 2])
    table = cvreport.collect(models, X, y, cv=3)  # an int still means sklearn's folds
    assert (table.design.K, table.design.n_records) == (3, 120)


def test_true_names_no_model_labelled_one() -> None:
    # was: Report(pairs=[(True, 2)]) and resolve_pair(True, 2) compared the model labelled 1
    frame = cvreport.load_example()
    codes = {"logistic_regression": 1, "decision_tree": 2, "naive_bayes": 3}
    table = cvreport.ResultsTable.from_formula(
        FORMULA, frame.assign(model=frame["model"].map(codes))
    )
    with pytest.raises(DataError, match=r"unknown model True; the table's models are 1, 2, 3"):
        cvreport.Report(table, pairs=[(True, 2)])
    assert table.resolve_pair(1.0, "2") == (1, 2)  # the same number, or its text, still finds it


# -- a missing column is named for what it is, once for the whole data -------------------
def _multi_predictions() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    frames = []
    for dataset in ("d1", "d2"):
        truth = rng.integers(0, 2, 40)
        for fold in (1, 2):
            for model, skill in (("a", 1.0), ("b", 0.5)):
                records = np.arange(40)[np.arange(40) % 2 == fold - 1]
                margin = (2 * truth[records] - 1) * skill + rng.normal(0, 1, records.size)
                frames.append(
                    pd.DataFrame(
                        {
                            "task": dataset,
                            "fold": fold,
                            "clf": model,
                            "id": records,
                            "y": truth[records],
                            "p": 1 / (1 + np.exp(-margin)),
                        }
                    )
                )
    return pd.concat(frames, ignore_index=True)


@pytest.mark.parametrize("route", ["metric formula", "label formula with metric"])
def test_a_missing_record_column_of_predictions_is_not_said_to_be_named_by_the_formula(route):
    """Was: 'Name the columns with truth=, prediction= … and record=.' beside a formula, and
    on many data sets 'data set 'd1': missing record column' for a column no data set has."""
    frame = _multi_predictions()
    formula = "roc_auc(y, p) ~ clf | fold | task"
    with pytest.raises(DataError) as caught:
        if route == "metric formula":
            cvreport.DatasetsTable.from_formula(formula, frame)
        else:
            cvreport.DatasetsTable.from_predictions(
                frame,
                truth="y",
                score="p",
                metric="roc_auc",
                model="clf",
                replication=None,
                dataset="task",
            )
    message = str(caught.value)
    assert message.startswith("missing record column 'record'; the data has columns")
    assert "data set 'd1'" not in message
    if route == "metric formula":
        assert message.endswith(
            "The formula does not name the record column: name it with record=... "
            "(--record on the command line)."
        )
    else:  # the keywords of predictions, not those of losses
        assert message.endswith("model=, replication=, fold= and record=.")
        assert "loss=" not in message
    table = cvreport.DatasetsTable.from_formula(formula, frame, record="id")
    assert table.datasets == ("d1", "d2")


def test_a_column_the_formula_names_is_quoted_with_its_data_set_term():
    frame = _multi_predictions()
    with pytest.raises(DataError) as caught:
        cvreport.DatasetsTable.from_formula("y ~ model | fold | task", frame, record="id")
    assert str(caught.value).startswith("missing model column 'model';")
    assert str(caught.value).endswith("The formula 'y ~ model | fold | task' names them.")


def test_the_command_line_names_the_flag_for_a_missing_record_column(tmp_path, capsys):
    path = tmp_path / "multi.csv"
    _multi_predictions().to_csv(path, index=False)
    out = tmp_path / "out.html"
    status = main(
        [
            "datasets",
            str(path),
            "-f",
            "y ~ clf | fold | task",
            "--metric",
            "roc_auc",
            "--score",
            "p",
            "-o",
            str(out),
        ]
    )
    error = capsys.readouterr().err
    assert status != 0 and not out.exists()
    assert "cvreport: error: missing record column 'record'" in error
    assert "--record on the command line" in error and "data set '" not in error
