"""Round seven of reading cvreport's results as a demanding new user.

One test set of a logistic regression and a 15-nearest-neighbour classifier on
the breast-cancer data (30 % hold-out, probabilities kept), 5×2 block-regularized
CV of the same two models, and one K-fold CV of 0/1 losses. Each test reads what
a user reads (a report, a result's summary or its row) and checks its numbers
against scikit-learn, scipy or statsmodels. "Was:" says what the reader met before.
"""

from __future__ import annotations

import math
import re
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import brier_score_loss, log_loss
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import cvreport
from cvreport.methods.recommendation import recommendation_for
from cvreport.methods.registry import SPECS
from cvreport.reporting import analyse as analyse_module
from tests._designs import TABLES, losses_frame

MODELS = {
    "logreg": lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
    "knn": lambda: make_pipeline(StandardScaler(), KNeighborsClassifier(15)),
}


def _quiet(function: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


@pytest.fixture(scope="module")
def holdout() -> pd.DataFrame:
    """Both models' probabilities on one stratified 30 % test set (171 records)."""
    x, y = load_breast_cancer(return_X_y=True)
    x_train, x_test, y_train, y_test = train_test_split(
        x, y, test_size=0.3, random_state=0, stratify=y
    )
    frames = []
    for name, make in MODELS.items():
        proba = make().fit(x_train, y_train).predict_proba(x_test)[:, 1]
        frames.append(
            pd.DataFrame(
                {
                    "clf": name,
                    "idx": np.arange(y_test.size),
                    "y": y_test,
                    "p1": proba,
                    "yhat": (proba > 0.5).astype(int),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def _predictions(frame: pd.DataFrame, metric: str) -> cvreport.ResultsTable:
    return cvreport.ResultsTable.from_predictions(
        frame,
        truth="y",
        score="p1",
        metric=metric,
        model="clf",
        record="idx",
        replication=None,
        fold=None,
    )


def _wide(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    return frame.pivot(index="idx", columns="clf", values=column)


# -- N12: one test set, a per-record loss that is not 0/1 -------------------------------------
@pytest.mark.parametrize(
    ("metric", "sklearn_metric"), [("log_loss", log_loss), ("brier_score_loss", brier_score_loss)]
)
def test_a_holdout_log_loss_report_decides_with_the_paired_bootstrap(
    holdout: pd.DataFrame, metric: str, sklearn_metric: Any
) -> None:
    """Was: "No test could be run: Log loss is a mean of per-record values, so the design's
    usual tests apply. A single hold-out split of non-0/1 losses fits none of cvreport's
    tests" while the API ran the paired bootstrap and permutation tests on the same table."""
    table = _predictions(holdout, metric)
    report = _quiet(cvreport.Report, table)
    markdown = report.to_markdown()
    assert "No test could be run" not in markdown
    assert "fits none" not in report.recommendation.reason
    [outcome] = report.analysis.comparisons[0].recommended
    assert outcome.name == "paired_bootstrap_test"
    # the estimate is scikit-learn's metric of A minus that of B
    scores, truth = _wide(holdout, "p1"), _wide(holdout, "y")["logreg"]
    expected = sklearn_metric(truth, scores["logreg"]) - sklearn_metric(truth, scores["knn"])
    assert outcome.result.estimate == pytest.approx(expected, rel=1e-9)
    # the report's p-value is the API's with the report's seed
    direct = cvreport.paired_bootstrap_test(table, "logreg", "knn", random_state=0)
    assert outcome.result.pvalue == pytest.approx(direct.pvalue, rel=1e-12)
    assert "Paired bootstrap test" in markdown.split("## The data")[0]
    # "all" holds the recommended test and the permutation test, which runs here too
    names = [o.name for o in _quiet(cvreport.Report, table, tests="all").outcomes]
    assert names[0] == "paired_bootstrap_test" and "paired_permutation_test" in names


def test_no_test_could_be_run_only_when_none_runs(holdout: pd.DataFrame) -> None:
    """The sentence is kept for a table of real per-record losses without predictions, where
    it is true: every test of the report refuses the table through the API too."""
    frame = holdout.assign(
        sq=lambda f: (f["y"] - f["p1"]) ** 2  # per-record Brier losses, as losses only
    )
    table = cvreport.ResultsTable.from_formula("sq ~ clf", frame, record="idx")
    for spec in SPECS:
        if spec.in_report and spec.models == 2:
            with pytest.raises(cvreport.CVReportError):
                _quiet(spec.function, table, "logreg", "knn")
    report = _quiet(cvreport.Report, table, tests="all")
    assert report.outcomes == []
    reason = report.recommendation.reason
    assert "from_predictions" in reason and "usual tests apply" not in reason
    assert "No test could be run" in report.to_markdown()


def _all_tables(holdout: pd.DataFrame) -> dict[str, cvreport.ResultsTable]:
    """Every design of the suite's fixtures with 0/1 losses and as scores, and one test set
    of predictions with each kind of metric (per record, 0/1, AUC), clusters included."""
    tables: dict[str, cvreport.ResultsTable] = dict(TABLES)
    for kind in TABLES:
        frame = losses_frame(kind).assign(hit=lambda f: 1 - f["loss"]).drop(columns="loss")
        tables[f"{kind}/score"] = cvreport.ResultsTable.from_formula(
            "hit ~ model | replication + fold",
            frame,
            direction="higher",
            **({"test_train_ratio": 0.5} if kind == "repeated_holdout" else {}),
        )
    for metric in ("log_loss", "brier_score_loss", "roc_auc"):
        tables[f"holdout/{metric}"] = _predictions(holdout, metric)
    for metric in ("accuracy", "f1"):
        tables[f"holdout/{metric}"] = cvreport.ResultsTable.from_predictions(
            holdout, truth="y", prediction="yhat", metric=metric, model="clf", record="idx",
            replication=None, fold=None,
        )  # fmt: skip
    clustered = holdout.assign(site=holdout["idx"] // 3)
    tables["holdout/log_loss/clusters"] = cvreport.ResultsTable.from_predictions(
        clustered,
        truth="y",
        score="p1",
        metric="log_loss",
        model="clf",
        record="idx",
        cluster="site",
        replication=None,
        fold=None,
    )
    folds = holdout.assign(fold=holdout["idx"] % 4)
    tables["kfold/f1"] = cvreport.ResultsTable.from_predictions(
        folds, truth="y", prediction="yhat", metric="f1", model="clf", record="idx",
        fold="fold", replication=None,
    )  # fmt: skip
    return tables


def _runs(spec: Any, table: cvreport.ResultsTable, a: Any, b: Any) -> bool:
    """Whether the test runs on the table through the API and reports in the table's metric."""
    options = {"n_resamples": 99} if spec.name in RESAMPLING else {}
    try:
        result = _quiet(spec.function, table, a, b, **options)
    except cvreport.CVReportError:
        return False
    return str(result.loss_name) in (str(table.loss_name), str(table.metric.name))


RESAMPLING = ("paired_bootstrap_test", "paired_permutation_test")


def _resolved(table: cvreport.ResultsTable, tests: str) -> tuple[Any, list[Any]]:
    """The recommendation and the tests ``tests=`` runs, resolved as the analysis does."""
    audit, _ = analyse_module._run_audit(table)
    advice = recommendation_for(table, partitions=getattr(audit, "design", None))
    return advice, analyse_module._resolve_tests(table, tests, advice)


def test_all_holds_every_recommended_test_and_every_test_that_runs(
    holdout: pd.DataFrame,
) -> None:
    """Was: "all" ran nothing on a hold-out log-loss table, where two tests run (and earlier,
    less than "recommended" on an AUC table)."""
    for key, table in _all_tables(holdout).items():
        a, b = list(table.models)[:2]
        advice, recommended = _quiet(_resolved, table, "recommended")
        _, every = _quiet(_resolved, table, "all")
        assert set(recommended) <= set(every), key
        assert set(advice.tests) | set(advice.fallback_tests) <= set(every), key
        running = {s.name for s in SPECS if s.in_report and s.models == 2 and _runs(s, table, a, b)}
        assert running <= {s.name for s in every}, (key, running - {s.name for s in every})
        assert advice.tests or not running, key  # a test runs, so one is recommended


# -- N10: one deciding test on balanced m×2 partitions ----------------------------------------
@pytest.fixture(scope="module")
def bcv_report() -> cvreport.Report:
    """5×2 block-regularized CV of both models on the breast-cancer data (0/1 losses)."""
    x, y = load_breast_cancer(return_X_y=True)
    estimators = {name: make() for name, make in MODELS.items()}
    table = cvreport.collect(
        estimators, x, y, cv=cvreport.splits.BlockRegularizedCV(5, random_state=0)
    )
    return _quiet(cvreport.Report, table)


def test_balanced_mx2_decides_with_one_test_and_reads_the_other_as_a_check(
    bcv_report: cvreport.Report,
) -> None:
    """Was: "For m×2 cross-validation: **Calibrated balanced 5×2cv F test and 5×2 BCV McNemar
    test**" and, in short, "No significant difference ... (F test, p = 0.147); significant
    difference ... (5×2 BCV McNemar test, p = 0.039)": two verdicts, two deciding tests."""
    markdown = bcv_report.to_markdown()
    assert bcv_report.recommendation.names == ("calibrated_ftest_5x2cv",)
    deciding, check = bcv_report.analysis.comparisons[0].outcomes
    # both numbers against scipy's distributions
    assert deciding.result.pvalue == pytest.approx(
        stats.f.sf(deciding.result.statistic, *deciding.result.df), rel=1e-9
    )
    assert check.result.pvalue == pytest.approx(stats.chi2.sf(check.result.statistic, 1), rel=1e-9)
    assert (deciding.reject, check.reject) == (False, True)  # the two tests disagree here
    assert (deciding.recommended, check.recommended, check.secondary) == (True, False, True)
    in_short = markdown.split("## In short")[1].split("##")[0]
    assert in_short.count("significant difference at α") == 1
    assert "5×2 BCV McNemar" not in in_short
    assert "For m×2 cross-validation: **Calibrated balanced 5×2cv F test**." in markdown
    sentence = bcv_report.analysis.comparisons[0].disagreement
    assert "secondary check" in sentence and "borderline" in sentence
    assert "raise the chance of a false difference above α" in sentence
    # the paper is named with its year
    assert "(Yang, Wang, Song and Li 2023)" in bcv_report.recommendation.reason


# -- N1: the CV interval's one-sided test shows the bound that decides ----------------------------
def test_the_cv_interval_summary_shows_the_one_sided_bound_of_its_one_sided_test() -> None:
    """Was: "alternative less", "p-value 0.027", "95% interval (-0.0305, 0.0002)", "reject H0
    at α = 0.05 yes", without a word that the test is one-sided."""
    table = TABLES["kfold"]
    result = cvreport.cv_confidence_interval(table, "A", "B")
    frame = losses_frame("kfold")
    wide = frame.pivot(index="record", columns="model", values="loss")
    h = (wide["A"] - wide["B"]).to_numpy(dtype=float)
    se = h.std(ddof=0) / math.sqrt(h.size)  # Bayle et al.'s σ̂_out / √n
    assert result.estimate == pytest.approx(h.mean(), rel=1e-12)
    assert result.pvalue == pytest.approx(stats.norm.cdf(h.mean() / se), rel=1e-9)
    for alpha in (0.01, 0.05, 0.1):
        bound = (-math.inf, h.mean() + stats.norm.ppf(1 - alpha) * se)
        text = result.summary(alpha).as_text()
        level = f"{100 * (1 - alpha):g}%"
        row = next(r for r in result.summary(alpha).rows if "one-sided bound" in r.label)
        assert row.label == f"{level} one-sided bound (the test's)"
        assert row.value == pytest.approx(bound)
        assert result.reject(alpha) == (bound[1] < 0)  # the bound decides as the test does
        flat = " ".join(text.split())
        assert "less: one-sided, H1: A − B < 0 (A has the lower " in flat
        assert ", A better)" in flat
        assert "One-sided test" in text
        framed = result.to_frame(alpha).iloc[0]
        assert (framed["one_sided_low"], framed["one_sided_high"]) == pytest.approx(bound)
        # the paper's two-sided interval stays conf_int(), as documented
        two = (h.mean() - stats.norm.ppf(1 - alpha / 2) * se, h.mean() + stats.norm.ppf(
            1 - alpha / 2) * se)  # fmt: skip
        assert result.conf_int(alpha) == pytest.approx(two)
    two_sided = cvreport.cv_confidence_interval(table, "A", "B", alternative="two-sided")
    assert "one-sided" not in two_sided.summary().as_text()
    assert math.isnan(two_sided.to_frame().iloc[0]["one_sided_low"])


# -- N7: how many resamples, and which seed ----------------------------------------------------
def test_resampling_results_say_how_many_draws_and_which_seed(holdout: pd.DataFrame) -> None:
    """Was: two calls gave p = 0.0348 and p = 0.0325 while the report said p = 0.033 with the
    seed 0, and summary() said neither that the draws were unseeded nor which seed."""
    table = _predictions(holdout, "roc_auc")
    options = {"n_resamples": 199}
    unseeded = cvreport.paired_bootstrap_test(table, "logreg", "knn", **options)
    text = " ".join(unseeded.summary().as_text().split())
    assert "resamples 199" in text
    assert "unseeded: another run gives another p-value and interval; pass random_state=" in text
    seeded = cvreport.paired_bootstrap_test(table, "logreg", "knn", random_state=0, **options)
    again = cvreport.paired_bootstrap_test(table, "logreg", "knn", random_state=0, **options)
    assert seeded.pvalue == again.pvalue and seeded.seed == "seed 0"
    assert "random draws seed 0" in " ".join(seeded.summary().as_text().split())
    row = seeded.to_frame().iloc[0]
    assert (row["n_resamples"], row["seed"]) == (199, "seed 0")
    # scipy draws the same resamples for the same seed: its standard error is the result's
    scores, truth = _wide(holdout, "p1"), _wide(holdout, "y")["logreg"].to_numpy()
    from sklearn.metrics import roc_auc_score

    def difference(y: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
        return roc_auc_score(y, a) - roc_auc_score(y, b)

    peer = stats.bootstrap(
        (truth, scores["logreg"].to_numpy(), scores["knn"].to_numpy()),
        difference,
        paired=True,
        vectorized=False,
        n_resamples=199,
        method="percentile",
        rng=0,
    )
    assert seeded.standard_error == pytest.approx(peer.standard_error, rel=1e-9)
    permutation = cvreport.paired_permutation_test(
        table, "logreg", "knn", random_state=3, n_resamples=499
    )
    assert permutation.seed == "seed 3" and permutation.n_resamples == 499
    # the report seeds 0 and says so in the result it shows
    report = _quiet(
        cvreport.Report,
        table,
        tests=["paired_bootstrap_test"],
        test_options={"paired_bootstrap_test": {"n_resamples": 499}},
    )
    assert report.outcomes[0].result.seed == "seed 0"


# -- N9: McNemar's χ² on few discordant records -------------------------------------------------
def test_mcnemar_on_few_discordant_records_names_them_and_the_exact_p_value(
    holdout: pd.DataFrame,
) -> None:
    """Was: "McNemar's test (continuity-corrected; recommended) | 0.4444 | 1 | 0.505" on
    b + c = 9 discordant records, without a word, though docs/methods.md advises the exact or
    mid-p variant for small b + c."""
    from statsmodels.stats.contingency_tables import mcnemar as statsmodels_mcnemar

    table = cvreport.ResultsTable.from_formula("{yhat != y} ~ clf", holdout, record="idx")
    wrong = _wide(holdout, "yhat").ne(_wide(holdout, "y"))
    b = int((wrong["logreg"] & ~wrong["knn"]).sum())
    c = int((~wrong["logreg"] & wrong["knn"]).sum())
    assert (b, c) == (3, 6)
    counts = [[0, b], [c, 0]]
    chi2 = statsmodels_mcnemar(counts, exact=False, correction=True)
    exact = statsmodels_mcnemar(counts, exact=True)
    midp = exact.pvalue - stats.binom.pmf(min(b, c), b + c, 0.5)
    result = cvreport.mcnemar(table, "logreg", "knn")
    assert (result.statistic, result.pvalue) == pytest.approx((chi2.statistic, chi2.pvalue))
    [note] = [n for n in result.notes if "b + c" in n]
    shown = re.fullmatch(
        r"the χ² approximation rests on b \+ c = 9 discordant records \(fewer than 25\): the "
        r"exact binomial test gives p = ([0-9.]+) \(method='exact'\) and its mid-p variant "
        r"p = ([0-9.]+) \(method='midp'\); prefer one of them with so few",
        note,
    )
    assert shown is not None, note
    assert float(shown[1]) == pytest.approx(exact.pvalue, abs=1e-4)  # 4 digits printed
    assert float(shown[2]) == pytest.approx(midp, abs=1e-4)
    assert "b + c = 9" in " ".join(result.summary().as_text().split())
    markdown = _quiet(cvreport.Report, table).to_markdown()
    assert "b + c = 9 discordant records" in markdown
    # the exact variant needs no such note, nor does the χ² test on many discordant records
    assert not any("b + c" in n for n in cvreport.mcnemar(table, method="exact").notes)
    assert not any("b + c" in n for n in cvreport.arrays.mcnemar(30, 12).notes)


# -- N3: one name for the metric -----------------------------------------------------------------
def test_results_name_the_metric_as_the_table_and_the_report_do(holdout: pd.DataFrame) -> None:
    """Was: "estimate (mean yhat != y A − B)", "better  lower yhat != y" and to_frame()'s metric
    "yhat != y", where the table and the report say "error rate"."""
    folds = holdout.assign(fold=holdout["idx"] % 5, rep=1)
    table = cvreport.ResultsTable.from_formula(
        "{yhat != y} ~ clf | rep + fold", folds, record="idx"
    )
    assert table.metric.name == "error rate"
    results = [
        cvreport.corrected_repeated_kfold_ttest(table, "logreg", "knn"),
        cvreport.cv_confidence_interval(table, "logreg", "knn"),
        cvreport.paired_ttest_kfold(table, "logreg", "knn"),
    ]
    for result in results:
        text = " ".join(result.summary().as_text().split())
        assert "yhat != y" not in text, result.test
        assert "mean error rate A − B" in text and "better lower error rate" in text
        assert result.to_frame()["metric"].item() == "error rate"
    # the per-fold error rates by hand: the paired t of scipy on them
    wrong = folds.assign(e=lambda f: (f["yhat"] != f["y"]).astype(float))
    per_fold = wrong.groupby(["fold", "clf"])["e"].mean().unstack()
    expected = stats.ttest_rel(per_fold["logreg"], per_fold["knn"])
    assert results[2].statistic == pytest.approx(expected.statistic, rel=1e-9)
    assert "A has the lower error rate, A better" in " ".join(
        results[1].summary().as_text().split()
    )
    report = _quiet(cvreport.Report, table).to_markdown()
    assert "yhat != y A" not in report and "mean error rate" in report
