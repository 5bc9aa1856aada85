"""Hostile input of round seven: extreme magnitudes, odd levels, contradictory flags.

Each test holds inputs that once gave a wrong number without a word, a report
that said something untrue, or a command that did what it was not asked; the
expected behaviour is a typed error that says what is wrong and what to do, the
same on every route, or numbers checked against an independent computation
(scipy or numpy).
"""

from __future__ import annotations

import re
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score

import cvreport
from cvreport import arrays
from cvreport.cli import main
from cvreport.errors import ArgumentError, CVReportError, DataError, DesignError
from tests._engines import need

ENGINES = [None, "duckdb", "polars"]
FORMULA = "loss ~ model | replication + fold"


def _kfold_losses(scale: float = 1.0, seed: int = 0) -> pd.DataFrame:
    """Real-valued losses of two models on 10-fold CV of 200 records, times ``scale``."""
    rng = np.random.default_rng(seed)
    rows = [
        (fold, model, 100 * fold + record, scale * rng.random())
        for fold in range(1, 11)
        for record in range(20)
        for model in ("A", "B")
    ]
    return pd.DataFrame(rows, columns=["fold", "model", "record", "loss"])


# -- magnitudes whose squares leave float64 ---------------------------------------------
_DIFFERENCES = np.array([0.01, 0.02, -0.01, 0.03, 0.00, 0.02, 0.01, 0.04, 0.02, 0.01])
_SPLITS = np.array([[0.02, -0.01], [0.03, 0.00], [0.01, 0.02], [-0.02, 0.01], [0.04, 0.00]])


@pytest.mark.parametrize("scale", [1e160, 1e300])
@pytest.mark.parametrize(
    "call",
    [
        lambda s: arrays.paired_ttest_kfold(_DIFFERENCES * s),
        lambda s: arrays.corrected_repeated_kfold_ttest(_DIFFERENCES * s, 0.11),
        lambda s: arrays.corrected_resampled_ttest(_DIFFERENCES * s, 0.25),
        lambda s: arrays.bayesian_correlated_ttest(_DIFFERENCES * s, 0.11),
        lambda s: arrays.paired_ttest_resampled(_DIFFERENCES * s),
        lambda s: arrays.combined_ttest_5x2cv(_SPLITS * s),
        lambda s: arrays.paired_ttest_5x2cv(_SPLITS * s),
        lambda s: arrays.combined_ftest_5x2cv(_SPLITS * s),
        lambda s: arrays.calibrated_ftest_5x2cv(_SPLITS * s),
        lambda s: arrays.blocked_ttest_3x2cv(_SPLITS[:3] * s),
        lambda s: arrays.cv_confidence_interval(_DIFFERENCES * s, np.arange(10) % 5),
        lambda s: arrays.clustered_paired_test(_DIFFERENCES * s, np.arange(10) % 5),
    ],
)
def test_differences_whose_squares_leave_float64_are_refused(call, scale) -> None:
    """Old: differences of 1e160 gave t = 0 and p = 1 (F: NaN) without a word, though the
    t statistic does not depend on the scale (it is 3.31 at scale 1); a table of such
    losses was already refused in these words."""
    with pytest.raises(DataError, match=r"in absolute value, so its sums of squares overflow"):
        call(scale)


@pytest.mark.parametrize("engine", ENGINES)
def test_arrays_refuse_differences_that_a_table_of_losses_refuses(engine) -> None:
    """Old: a table of losses of 1e200 was refused in words on every engine, while the
    same differences handed to cvreport.arrays gave t = 0 and p = 1; both routes now
    say the same, and keep scipy's t at magnitudes that still compute."""
    if engine:
        need(engine)
    frame = _kfold_losses(1e200)
    with pytest.raises(DataError, match="overflow"):
        cvreport.ResultsTable(frame, replication=None, engine=engine)
    means = frame.pivot_table(index="fold", columns="model", values="loss")
    with pytest.raises(DataError, match="overflow"):
        arrays.paired_ttest_kfold((means["A"] - means["B"]).to_numpy())
    plain = _kfold_losses().pivot_table(index="fold", columns="model", values="loss")
    expected = stats.ttest_rel(plain["A"], plain["B"])
    for scale in (1e-150, 1e150):
        scaled = arrays.paired_ttest_kfold((plain["A"] - plain["B"]).to_numpy() * scale)
        assert scaled.statistic == pytest.approx(expected.statistic, rel=1e-9)
        assert scaled.pvalue == pytest.approx(expected.pvalue, rel=1e-9)


# -- levels near 1 ---------------------------------------------------------------------
def test_a_tiny_alpha_gives_an_interval_named_by_its_own_level() -> None:
    """Old: at α = 1e-7 (a five-sigma level) the summary and the report printed a
    '100% interval' beside finite bounds; it is the 99.99999% interval of scipy."""
    alpha = 1e-7
    result = arrays.paired_ttest_kfold(_DIFFERENCES)
    expected = stats.ttest_1samp(_DIFFERENCES, 0.0).confidence_interval(1 - alpha)
    assert result.conf_int(alpha) == pytest.approx((expected.low, expected.high))
    text = str(result.summary(alpha=alpha))
    assert "99.99999% interval" in text and "100% interval" not in text
    report = cvreport.Report(
        cvreport.ResultsTable(_kfold_losses(), replication=None), alpha=alpha
    ).to_markdown()
    assert "99.99999%" in report and "100%" not in report


def test_the_many_data_sets_report_names_a_tiny_alpha_by_its_level() -> None:
    """Old: the effect-size paragraph of the many-data-sets report formatted its own
    level and printed '100% interval' at α = 1e-7."""
    table = cvreport.DatasetsTable.from_formula(
        "loss ~ model | replication + fold | dataset", cvreport.load_example("multi")
    )
    text = cvreport.DatasetsReport(table, alpha=1e-7).to_markdown()
    assert "99.99999% interval" in text and "100% interval" not in text


# -- outputs the command line was not asked for -------------------------------------------
def _example_csv(tmp_path) -> str:
    data = tmp_path / "data.csv"
    cvreport.load_example().to_csv(data, index=False)
    return str(data)


def _folder(tmp_path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in tmp_path.iterdir()}


@pytest.mark.parametrize(
    ("out", "fmt", "words"),
    [
        ("r.html", "md", "--format md asks for Markdown, but the file name r.html ends in .html"),
        ("r.md", "tex", "--format tex asks for LaTeX, but the file name r.md ends in .md"),
        ("r.tex", "html", "--format html asks for HTML, but the file name r.tex ends in .tex"),
    ],
)
def test_a_format_that_contradicts_the_suffix_is_refused(tmp_path, capsys, out, fmt, words):
    """Old: ``-o r.html --format md`` wrote Markdown into r.html, which a browser shows
    as one line of text."""
    data = _example_csv(tmp_path)
    before = _folder(tmp_path)
    assert main(["report", data, "-f", FORMULA, "-o", str(tmp_path / out), "--format", fmt]) == 1
    err = capsys.readouterr().err
    assert err.startswith("cvreport: error: ") and words in err
    assert _folder(tmp_path) == before


def test_report_save_refuses_a_format_that_contradicts_the_suffix(tmp_path) -> None:
    """Old: ``Report.save("r.html", format="md")`` wrote Markdown into r.html."""
    report = cvreport.Report(cvreport.ResultsTable.from_formula(FORMULA, cvreport.load_example()))
    with pytest.raises(CVReportError, match=r"format='md' asks for Markdown, .* r\.html"):
        report.save(tmp_path / "r.html", format="md")
    assert not (tmp_path / "r.html").exists()
    # a format still names the format of a file whose suffix names none, or the same one
    report.save(tmp_path / "r.txt", format="md")
    assert (tmp_path / "r.txt").read_text() == report.to_markdown()
    report.save(tmp_path / "r.htm", format="html")
    assert (tmp_path / "r.htm").read_text() == report.to_html()


def test_the_command_line_writes_a_format_into_a_file_of_another_suffix(tmp_path, capsys):
    """With a contradicting --format refused, one for notes.txt still writes it there, and
    --format md beside r.html says how the two disagree."""
    data = _example_csv(tmp_path)
    # the same file read by pandas through the API, as the command line reads it
    expected = cvreport.Report(cvreport.ResultsTable.from_formula(FORMULA, data, engine="pandas"))
    argv = ["report", data, "-f", FORMULA, "--format", "md", "-o"]
    assert main([*argv, str(tmp_path / "notes.txt")]) == 0, capsys.readouterr().err
    assert (tmp_path / "notes.txt").read_text() == expected.to_markdown()
    assert main([*argv, str(tmp_path / "r.html")]) == 1
    assert "(HTML); name the file for the format you want (e.g. r.md)" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("command", "flag"),
    [
        (["report", "--format", "md", "-o"], "-o"),
        (["report", "-o", "r.md", "--pairs-csv"], "--pairs-csv"),
        (["report", "-o", "r.md", "--audit-csv"], "--audit-csv"),
        (["plan", "--effect", "0.01", "logistic_regression", "decision_tree", "--csv"], "--csv"),
        (["plan", "--effect", "0.01", "logistic_regression", "decision_tree", "--svg"], "--svg"),
    ],
)
def test_an_output_named_dash_is_refused_not_written_as_a_file(
    tmp_path, capsys, monkeypatch, command, flag
):
    """Old: ``-o - --format md`` (and ``--pairs-csv -``, plan's ``--csv -``) wrote a file
    named '-' into the working folder where '-' reads as the standard output."""
    data = _example_csv(tmp_path)
    monkeypatch.chdir(tmp_path)
    before = _folder(tmp_path)
    assert main([command[0], data, "-f", FORMULA, *command[1:], "-"]) == 1
    err = capsys.readouterr().err
    assert f"{flag} - would write a file named '-'" in err
    assert _folder(tmp_path) == before


# -- plans of designs the pilot cannot run -------------------------------------------------
def _pilot() -> cvreport.ResultsTable:
    return cvreport.ResultsTable.from_formula(FORMULA, cvreport.load_example())


def test_the_ceiling_of_the_corrected_t_is_never_below_the_power_of_a_given_design() -> None:
    """Old: on a given 1000×500 CV the note said 'the best on any of the given designs is
    0.090' and then 'even with unlimited replications the power cannot exceed 0.089': the
    ceiling was taken over 2, 5 and 10 folds only, not over the folds of the given design."""
    result = cvreport.plan(
        _pilot(), "logistic_regression", "decision_tree", effect=0.01, designs=["1000x500"]
    )
    (note,) = [r.note for r in result.recommendations if r.test.startswith("corrected")]
    best = float(re.search(r"the best on any of the given designs is (\d+\.\d+)", note)[1])
    ceiling = float(re.search(r"the power cannot exceed (\d+\.\d+)", note)[1])
    assert best == pytest.approx(result.to_frame()["power"].max(), abs=5e-4)
    assert ceiling >= best


@pytest.mark.parametrize("design", ["1000-fold", "10x600"])
def test_a_design_of_more_folds_than_records_is_refused(design) -> None:
    """Old: a 1000-fold CV of the example's 569 records got a power (0.035) like any design,
    though a fold needs at least one record and the plan scales the pilot's variance to
    folds of n/K records."""
    with pytest.raises(DesignError, match=r"needs at least \d+ records .* holds 569; plan at most"):
        cvreport.plan(
            _pilot(), "logistic_regression", "decision_tree", effect=0.01, designs=[design]
        )
    # as many folds as records (leave-one-out) is a design
    loo = cvreport.plan(
        _pilot(), "logistic_regression", "decision_tree", effect=0.01, designs=["569-fold"]
    )
    assert loo.to_frame()["K"].tolist() == [569]


def test_the_power_curve_refuses_more_folds_than_records_as_the_plan_does() -> None:
    """Old: power_curve(folds=(1000,)) on the example's 569 records drew a curve that
    cvreport.plan refuses to compute."""
    pilot = _pilot()
    with pytest.raises(DesignError, match=r"1000-fold .* needs at least 1000 records .* 569"):
        cvreport.power_curve(
            pilot, "logistic_regression", "decision_tree", effect=0.01, folds=(10, 1000)
        )
    curve = cvreport.power_curve(
        pilot, "logistic_regression", "decision_tree", effect=0.01, folds=(569,),
        replications=range(1, 3),
    )  # fmt: skip
    assert curve.to_frame()["K"].unique().tolist() == [569]


# -- a margin is a number like every other option ------------------------------------------
@pytest.mark.parametrize("margin", [np.array(0.05), Decimal("0.05")])
def test_a_margin_of_numpy_or_decimal_is_the_margin_of_its_float(margin) -> None:
    """Old: margin=np.array(0.05) and margin=Decimal('0.05') were refused as 'not a
    positive number', while rope=, test_train_ratio= and alpha= read them as numbers."""
    ratio = 0.11
    got = arrays.corrected_repeated_kfold_ttest(
        _DIFFERENCES, ratio, alternative="non-inferior", margin=margin
    )
    # Nadeau and Bengio's corrected variance, one-sided against the margin, by hand
    k = _DIFFERENCES.size
    se = np.sqrt((1 / k + ratio) * _DIFFERENCES.var(ddof=1))
    t = (_DIFFERENCES.mean() - float(margin)) / se
    assert got.statistic == pytest.approx(t, rel=1e-6)
    assert got.pvalue == pytest.approx(stats.t.cdf(t, k - 1), rel=1e-6)
    folds = np.arange(k) % 5
    interval = arrays.cv_confidence_interval(
        _DIFFERENCES, folds, alternative="equivalent", margin=margin
    )
    plain = arrays.cv_confidence_interval(
        _DIFFERENCES, folds, alternative="equivalent", margin=0.05
    )
    assert interval.pvalue == pytest.approx(plain.pvalue, rel=1e-6)


# -- many data sets at any scale -----------------------------------------------------------
def _scores() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    means = np.array([0.70, 0.75, 0.80])
    return pd.DataFrame(rng.normal(0, 0.02, (10, 3)) + means, columns=["A", "B", "C"])


@pytest.mark.parametrize("scale", [1e-14, 1e-50])
def test_many_data_sets_give_the_friedman_and_wilcoxon_of_scipy_at_any_scale(scale) -> None:
    """Old: scores were rounded to twelve decimals before ranking, so losses of 1e-14 (or
    1e-50) were all tied: Friedman χ² = 0 and every Wilcoxon p = 1 where scipy gives 20.0
    and 0.002."""
    scores = _scores()
    scaled = cvreport.compare_datasets(scores * scale, direction="higher")
    expected = stats.friedmanchisquare(*scores.to_numpy().T)
    assert scaled.friedman.statistic == pytest.approx(expected.statistic)
    assert scaled.friedman.pvalue == pytest.approx(expected.pvalue)
    wilcoxon = stats.wilcoxon(scores["A"], scores["B"])
    row = scaled.wilcoxon.set_index(["a", "b"]).loc[("A", "B")]
    assert row["pvalue"] == pytest.approx(wilcoxon.pvalue)
    plain = cvreport.compare_datasets(scores, direction="higher")
    np.testing.assert_allclose(
        scaled.effect_sizes["hedges_g"], plain.effect_sizes["hedges_g"], rtol=1e-9
    )


@pytest.mark.parametrize(("scale", "words"), [(1e-300, "squares fall below"), (1e300, "overflow")])
def test_many_data_sets_refuse_scores_whose_squares_leave_float64(scale, words) -> None:
    """Old: scores of 1e300 gave Hedges' g of -0.0 and a Friedman χ² of 0, and scores of
    1e-300 gave Hedges' g of -inf with a NaN interval, without a word."""
    with pytest.raises(DataError, match=f"the table of scores reaches .*{words}"):
        cvreport.compare_datasets(_scores() * scale, direction="higher")


def test_a_number_of_draws_beyond_memory_is_refused_in_words() -> None:
    """Old: n_samples=1e9 raised numpy's raw MemoryError (88 GB of Dirichlet weights)."""
    with pytest.raises(CVReportError, match=r"n_samples=1000000000 draws .* pass at most \d+"):
        cvreport.compare_datasets(_scores(), direction="higher", n_samples=1e9)


# -- a switch that is no switch ------------------------------------------------------------
def _savers(tmp_path):
    table = _pilot()
    data = _example_csv(tmp_path)
    multi = cvreport.DatasetsTable.from_formula(
        "loss ~ model | replication + fold | dataset", cvreport.load_example("multi")
    )
    curve = cvreport.power_curve(
        table, "logistic_regression", "decision_tree", effect=0.05, replications=range(1, 4)
    )
    return {
        "r.md": lambda path, o: cvreport.Report(table).save(path, overwrite=o),
        "d.md": lambda path, o: cvreport.DatasetsReport(multi).save(path, overwrite=o),
        "cd.svg": lambda path, o: cvreport.DatasetsReport(multi).save_cd(path, overwrite=o),
        "curve.svg": lambda path, o: curve.save(path, overwrite=o),
        "n.ipynb": lambda path, o: cvreport.notebook.write(path, data=data, overwrite=o),
    }


def test_overwrite_given_as_text_is_refused_and_the_file_kept(tmp_path) -> None:
    """Old: ``save(path, overwrite="no")`` replaced an existing file (any text but '' is
    true), and ``overwrite=1`` did too, where every other switch refuses them in words."""
    for name, save in _savers(tmp_path).items():
        path = tmp_path / name
        path.write_text("kept")
        for value in ("no", "False", 1):
            with pytest.raises(CVReportError, match="overwrite must be True or False"):
                save(path, value)
            assert path.read_text() == "kept", (name, value)
        save(path, np.bool_(True))  # a numpy bool is a switch
        assert path.read_text() != "kept", name


def test_saving_a_report_to_a_folder_says_it_is_a_folder(tmp_path) -> None:
    """Old: ``Report.save(folder)`` said 'cannot tell the report format' of the folder's
    name, and only ``format=`` reached the message that it is a folder."""
    report = cvreport.Report(_pilot())
    with pytest.raises(CVReportError, match=r"is a folder; give a file name inside it, e\.g\. "):
        report.save(tmp_path)
    assert list(tmp_path.iterdir()) == []


# -- masked labels, scores, clusters and folds ---------------------------------------------
def _scored(n: int = 200):
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 2, n)
    return truth, truth + rng.normal(0, 1, n), truth + rng.normal(0, 1.5, n)


def _masked(values, at: int = 3):
    return np.ma.masked_array(values, mask=np.arange(len(values)) == at)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda y, a, b: arrays.delong_test(y, _masked(a), b), "score_a"),
        (lambda y, a, b: arrays.delong_test(_masked(y), a, b), "truth"),
        (lambda y, a, b: arrays.paired_bootstrap_test(y, _masked(a > 0.5), b > 0.5), "a"),
        (lambda y, a, b: arrays.paired_permutation_test(_masked(y), a > 0.5, b > 0.5), "truth"),
        (
            lambda y, a, b: arrays.paired_bootstrap_test(
                y, a > 0.5, b > 0.5, clusters=_masked(np.arange(y.size) % 10)
            ),
            "clusters",
        ),
        (
            lambda y, a, b: arrays.clustered_paired_test(a - b, _masked(np.arange(y.size) % 10)),
            "clusters",
        ),
        (
            lambda y, a, b: arrays.cv_confidence_interval(a - b, _masked(np.arange(y.size) % 10)),
            "folds",
        ),
    ],
)
def test_masked_labels_scores_clusters_and_folds_are_refused(call, name) -> None:
    """Old: a masked score, label, cluster or fold entered DeLong's test, the resampling
    tests, the cluster-robust test and the CV interval with the value under its mask (the
    differences of round five were refused, these were not)."""
    truth, a, b = _scored()
    with pytest.raises(DataError, match=rf"^{name} is a masked array with 1 masked value"):
        call(truth, a, b)
    # without masked values a masked array is its values: DeLong's AUCs are sklearn's
    result = arrays.delong_test(truth, np.ma.masked_array(a), b)
    assert result.estimate == pytest.approx(roc_auc_score(truth, a) - roc_auc_score(truth, b))


def test_a_misspelt_test_option_is_named_with_the_options_the_test_takes() -> None:
    """Old: ``test_options={"bayesian_correlated_ttest": {"rop": 0.02}}`` ran the audit and
    the other tests, then said '_bayesian() got an unexpected keyword argument', naming an
    internal function and not the options."""
    for tests in ("all", ["bayesian_correlated_ttest"]):
        with pytest.raises(ArgumentError) as raised:
            cvreport.Report(
                _pilot(), tests=tests, test_options={"bayesian_correlated_ttest": {"rop": 0.02}}
            )
        message = str(raised.value)
        assert "has no option 'rop'; did you mean rope?" in message
        assert "rope, test_train_ratio, alternative" in message and "_bayesian" not in message


# -- the explorer reads options as the report reads them ---------------------------------
def test_the_explorer_reads_corrections_and_test_names_in_any_case_as_the_report_does():
    """Old: ``explore(table, correction="HOLM")`` and ``tests="ALL"`` or
    ``tests="Combined_Ftest_5x2cv"`` were refused as unknown, though ``Report`` reads
    the same words (case and spaces aside) since round six."""
    pytest.importorskip("ipywidgets")
    table = _pilot()
    a, b = "logistic_regression", "decision_tree"
    app = cvreport.explore(table, a=a, b=b, correction=" HOLM ", tests="Combined_Ftest_5x2cv")
    assert app.correction.value == "holm"
    assert list(app.chosen_tests) == ["combined_ftest_5x2cv"]
    result = app.build_report().results[0]
    assert result.pvalue == pytest.approx(cvreport.combined_ftest_5x2cv(table, a, b).pvalue)
    assert cvreport.explore(table, tests="ALL").chosen_tests == "all"


@pytest.mark.parametrize(
    "command",
    [
        ["report", "--example", "multi", "-o", "r.md"],
        ["notebook", "--example", "multi", "-o", "n.ipynb"],
        ["plan", "--example", "multi", "--effect", "0.01", "logistic_regression", "knn"],
    ],
)
def test_the_many_data_sets_example_sends_one_data_set_commands_to_datasets(
    tmp_path, capsys, monkeypatch, command
):
    """Old: ``cvreport report --example multi`` read the ten data sets as one table and
    said 'replications have different numbers of folds', which is not what is wrong."""
    monkeypatch.chdir(tmp_path)
    assert main(command) == 1
    err = capsys.readouterr().err
    assert "the 'multi' example holds many data sets" in err
    assert "cvreport datasets --example multi" in err and "different numbers" not in err
    assert list(tmp_path.iterdir()) == []
