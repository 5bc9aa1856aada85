"""Round six of reading cvreport's output as a new user: predictions, margins, clusters.

Each test renders what a user reads (a report in HTML, Markdown or LaTeX, a
many-data-sets report, a notebook, a plan) on a scenario the earlier rounds did
not read: F1 from predictions on 10-fold CV with three models, an equivalence
test against a margin, records in clusters, many data sets from predictions,
the notebook of predictions, a plan from a 10×10 pilot. "Was:" says what the
reader met before.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import nbformat
import numpy as np
import pandas as pd
import pytest
from nbclient import NotebookClient
from scipy import stats
from sklearn.metrics import f1_score

import cvreport
from cvreport.cli import main
from cvreport.rendering.code_tokens import TOKEN_CLASS, mark_code_tokens
from tests._fakes import compile_latex, overfull_boxes, pdflatex_or_skip

FORMULA = "y ~ model | replication + fold"
F1_FORMULA = "f1(y, pred) ~ model | replication + fold"
ACCURACY_FORMULA = "accuracy(y, pred) ~ model | replication + fold"
NOISE = {"logreg": 0.9, "tree": 1.3, "nb": 1.8}
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]*")


def kfold_predictions(
    *, records: int = 300, folds: int = 10, replications: int = 1, seed: int = 11
) -> pd.DataFrame:
    """Predictions of three models on K-fold CV; records in clusters of 5, folds by cluster.

    Columns ``replication, fold, model, record, site, y, proba, pred``.
    """
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, records)
    site = np.arange(records) // 5
    frames = []
    for replication in range(1, replications + 1):
        order = rng.permutation(site.max() + 1)
        fold_of_site = np.empty(site.max() + 1, dtype=int)
        fold_of_site[order] = np.arange(order.size) % folds + 1
        for model, noise in NOISE.items():
            signal = (2 * truth - 1) * 1.2 + rng.normal(0, noise, records)
            proba = 1 / (1 + np.exp(-signal))
            frames.append(
                pd.DataFrame(
                    {
                        "replication": replication,
                        "fold": fold_of_site[site],
                        "model": model,
                        "record": np.arange(records),
                        "site": site,
                        "y": truth,
                        "proba": proba,
                        "pred": (proba > 0.5).astype(int),
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return kfold_predictions()


@pytest.fixture(scope="module")
def f1_report(frame: pd.DataFrame) -> cvreport.Report:
    table = cvreport.ResultsTable.from_formula(F1_FORMULA, frame)
    return cvreport.Report(table)


def fold_f1(frame: pd.DataFrame) -> pd.DataFrame:
    """Each fold's F1 of the positive class 1 by scikit-learn: folds × models."""
    return (
        frame.groupby(["fold", "model"])
        .apply(lambda g: f1_score(g["y"], g["pred"], pos_label=1))
        .unstack("model")
    )


def _flat(text: str) -> str:
    return " ".join(text.split())


# -- 1. F1 on 10-fold CV, three models: every number in F1, higher is better -------------------
def test_an_f1_report_gives_each_folds_f1_and_the_corrected_t_of_scikit_learns_values(
    frame: pd.DataFrame, f1_report: cvreport.Report
) -> None:
    markdown = f1_report.to_markdown()
    scores = fold_f1(frame)
    for model in NOISE:
        assert f"| {model} | {scores[model].mean():.4f} |" in markdown
    assert "positive class `1` (inferred" in markdown
    # the corrected t of Nadeau and Bengio (2003) on the per-fold F1 differences, by hand
    d = (scores["logreg"] - scores["tree"]).to_numpy()
    k = d.size
    ratio = 1 / (k - 1)  # equal folds: validation / training size
    t = d.mean() / np.sqrt((1 / k + ratio) * d.var(ddof=1))
    p = 2 * stats.t.sf(abs(t), k - 1)
    row = next(o for o in f1_report.analysis.comparisons[0].outcomes)
    assert row.result.statistic == pytest.approx(t, rel=1e-9)
    assert row.result.pvalue == pytest.approx(p, rel=1e-9)
    leader = "logreg" if d.mean() > 0 else "tree"
    assert f"{leader} has the higher mean per-fold F1, by {abs(d.mean()):.4f}" in markdown


# -- 2. a flag in a sentence never breaks across lines in the HTML -----------------------------
def test_flags_and_api_names_in_the_html_text_are_code_tokens() -> None:
    """Was: "(test_options, --rope)" plain text, which the browser broke after "--"."""
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example()
    )
    html = cvreport.Report(table, tests="all").to_html()
    assert f'<code class="{TOKEN_CLASS}">--rope</code>' in html
    assert f'<code class="{TOKEN_CLASS}">cvreport.splits</code>' in html
    text = re.sub(r"(?s)<(code|style|script|svg)\b.*?</\1>", "", html)
    text = re.sub(r"<[^>]*>", " ", text)
    assert FLAG.findall(text) == []  # every flag in the text is inside <code>
    assert ".cvreport code { white-space: nowrap;" in html


def test_marking_code_tokens_leaves_attributes_code_and_styles_alone() -> None:
    page = (
        '<style>.a { color: var(--cvr-accent); }</style><p title="--rope">a --rope b, -f x, '
        "Report.overview.</p><code>--tests all</code><svg><desc>--rope</desc></svg>"
    )
    marked = mark_code_tokens(page)
    assert marked == (
        '<style>.a { color: var(--cvr-accent); }</style><p title="--rope">a '
        f'<code class="{TOKEN_CLASS}">--rope</code> b, <code class="{TOKEN_CLASS}">-f</code> x, '
        f'<code class="{TOKEN_CLASS}">Report.overview</code>.</p><code>--tests all</code>'
        "<svg><desc>--rope</desc></svg>"
    )
    assert mark_code_tokens(marked) == marked


def test_no_flag_is_split_across_lines_at_narrow_widths(browser: Any, tmp_path: Path) -> None:
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example()
    )
    path = tmp_path / "report.html"
    cvreport.Report(table, tests="all").save(path)
    page = browser.new_page(viewport={"width": 360, "height": 800})
    page.goto(path.as_uri())
    page.screenshot(path=str(tmp_path / "report-360.png"), full_page=True)
    split = []
    for width in range(320, 481, 8):
        page.set_viewport_size({"width": width, "height": 800})
        split += page.evaluate(
            """() => [...document.querySelectorAll('code')]
                .filter(c => !/\\s/.test(c.textContent) && c.getClientRects().length > 1)
                .map(c => c.textContent)"""
        )
        tokens = page.evaluate(f"() => document.querySelectorAll('code.{TOKEN_CLASS}').length")
        assert tokens >= 2
    page.close()
    assert split == []


# -- 3. the warning mark of the HTML table, in Markdown and LaTeX too --------------------------
@pytest.fixture(scope="module")
def clustered_all(frame: pd.DataFrame) -> cvreport.Report:
    table = cvreport.ResultsTable.from_formula(ACCURACY_FORMULA, frame, cluster="site")
    return cvreport.Report(table, tests="all", pairs=[("logreg", "tree")])


def test_a_test_with_warnings_is_marked_in_every_format_with_one_legend(
    clustered_all: cvreport.Report, tmp_path: Path
) -> None:
    """Was: only the HTML table showed "warning" beside such a test."""
    outcomes = [o for o in clustered_all.comparisons[0].outcomes if o.posterior is None]
    warned = {o.method for o in outcomes if [*o.result.warnings, *o.extra_warnings]}
    assert warned and len(warned) < len(outcomes)
    markdown = clustered_all.to_markdown()
    rows = [line for line in markdown.splitlines() if line.startswith("| ") and " | " in line]
    for outcome in outcomes:
        row = next(r for r in rows if r.startswith(f"| {outcome.method}"))
        assert ("warning)" in row.split(" | ")[0]) == (outcome.method in warned), row
    legend = "this test raised a warning; see Caveats for these tests."
    assert f"\nwarning: {legend}\n" in markdown
    html = clustered_all.to_html()
    assert html.count('cvr-badge-caution" title="this test raised a warning') == len(warned)
    assert f"</span> {legend}</p>" in html
    latex = clustered_all.to_latex()
    for outcome in outcomes:
        name = outcome.method.replace("×", "$\\times$")
        marked = re.search(re.escape(name) + r"\\textsuperscript\{([A-Z,0-9a-z]+)\}", latex)
        marks = marked.group(1).split(",") if marked else []
        assert ("W" in marks) == (outcome.method in warned), outcome.method
    assert f"\\textsuperscript{{W}} {legend}" in latex
    exe = pdflatex_or_skip()
    compile_latex(exe, latex, tmp_path)
    log = (tmp_path / "report.log").read_text(encoding="utf-8", errors="replace")
    assert overfull_boxes(log) == []


# -- 4. clusters: said in the data section; every record-level test warned ------------------
def test_the_report_says_the_clusters_were_checked_against_the_folds(
    clustered_all: cvreport.Report,
) -> None:
    """Was: --cluster given, and the report said nothing about it beyond the formula."""
    markdown = clustered_all.to_markdown()
    assert "| Clusters of records | Each of the 60 clusters lies in one fold of every " in markdown
    assert "replication |" in markdown


def test_the_cv_interval_is_warned_that_it_treats_clustered_records_as_independent(
    clustered_all: cvreport.Report,
) -> None:
    """Was: McNemar's test carried the warning, the CV interval (also per record) did not."""
    outcome = next(
        o for o in clustered_all.comparisons[0].outcomes if o.name == "cv_confidence_interval"
    )
    assert any("60 clusters" in w for w in outcome.extra_warnings)


def test_a_cluster_split_by_the_folds_is_among_the_caveats_not_on_stderr_only(
    frame: pd.DataFrame,
) -> None:
    leaky = frame.assign(site=frame["record"] % 30)
    with pytest.warns(cvreport.errors.PartitionWarning):
        table = cvreport.ResultsTable.from_formula(ACCURACY_FORMULA, leaky, cluster="site")
    markdown = cvreport.Report(table).to_markdown()
    # by hand: every cluster of 10 records spread over the 10 folds lies in two or more
    spread = leaky.groupby("site")["fold"].nunique()
    assert (spread > 1).sum() == 30
    assert (
        "| Clusters of records | 30 clusters; 30 of them lie in two or more folds of one "
        "replication, which leaks information from training to validation (see the caveats) |"
    ) in markdown
    caveats = markdown.split("## Caveats", 1)[1]
    assert "- 30 of 30 clusters lie in two or more folds of one replication" in caveats


# -- 5. an equivalence report reads its p-values the other way round --------------------------
def test_an_equivalence_report_does_not_say_a_large_p_means_the_data_cannot_tell(
    frame: pd.DataFrame,
) -> None:
    """Was: "A p-value above α ... means the data cannot tell them apart", beside an
    equivalence test whose interval excluded 0; and Schuirmann (1987) cited, not listed."""
    table = cvreport.ResultsTable.from_formula(ACCURACY_FORMULA, frame)
    options = {"corrected_repeated_kfold_ttest": {"alternative": "equivalent", "margin": 0.02}}
    report = cvreport.Report(table, pairs=[("logreg", "nb")], test_options=options)
    markdown = report.to_markdown()
    outcome = report.comparisons[0].outcomes[0]
    assert outcome.result.alternative == "equivalent"
    caveats = _flat(markdown.split("## Caveats", 1)[1].split("## References", 1)[0])
    assert "cannot tell them apart" not in caveats
    assert "For an equivalence test, a significant result says the two models differ by less " in (
        caveats
    )
    references = markdown.split("## References", 1)[1]
    assert "(Schuirmann 1987)" in markdown.split("## References", 1)[0]
    assert "Schuirmann, D. J. (1987)." in references
    # a report of two-sided tests keeps its caveats as they were
    plain = cvreport.Report(table, pairs=[("logreg", "nb")]).to_markdown()
    assert "- A p-value above α is not evidence that the models are equally good" in plain
    assert "Schuirmann" not in plain


# -- 6. many data sets from predictions ----------------------------------------------------------
@pytest.fixture(scope="module")
def many_html(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("many")
    frames = []
    for index in range(6):
        one = kfold_predictions(records=120, folds=2, replications=5, seed=30 + index)
        frames.append(one.assign(dataset=f"task{index}"))
    data = folder / "many.csv"
    pd.concat(frames).to_csv(data, index=False)
    out = folder / "many.html"
    status = main(
        ["datasets", str(data), "-f", f"{FORMULA} | dataset", "--metric", "roc_auc", "--score",
         "proba", "-o", str(out), "--samples", "2000"]
    )  # fmt: skip
    assert status == 0
    return out


def test_the_many_data_sets_page_does_not_widen_a_narrow_screen(
    browser: Any, many_html: Path, tmp_path: Path
) -> None:
    """Was: at 360 px the page scrolled sideways to 867 px (its tables had no scroll box)."""
    page = browser.new_page(viewport={"width": 360, "height": 800})
    page.goto(many_html.as_uri())
    page.screenshot(path=str(tmp_path / "many-360.png"), full_page=True)
    width = page.evaluate("document.documentElement.scrollWidth")
    page.close()
    assert width == 360


def test_the_many_data_sets_references_list_papers_not_equations(many_html: Path) -> None:
    """Was: "Neural Computation 11(8):1885–1892, eq. 3.1." in the bibliography."""
    html = many_html.read_text(encoding="utf-8")
    references = html.split('id="cvr-references', 1)[1] if 'id="cvr-references' in html else html
    assert "Alpaydın, E. (1999)" in references
    assert not re.search(r"\beqs?\. \d", references)


# -- 7. the notebook of predictions ---------------------------------------------------------------
def test_the_notebook_of_f1_from_predictions_runs_and_describes_its_values(
    frame: pd.DataFrame, tmp_path: Path
) -> None:
    """Was: "the mean loss, or the score as given" above F1 values computed per fold."""
    frame.to_csv(tmp_path / "kfold.csv", index=False)
    out = tmp_path / "analysis.ipynb"
    status = main(
        ["notebook", str(tmp_path / "kfold.csv"), "-f", FORMULA, "--metric", "f1",
         "--prediction", "pred", "-o", str(out)]
    )  # fmt: skip
    assert status == 0
    nb = nbformat.read(out, as_version=4)
    text = " ".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "score as given" not in text
    assert "the metric computed from the fold's predictions" in text
    NotebookClient(
        nb, kernel_name="python3", timeout=180, resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    table_cell = next(c for c in nb.cells if c.get("id") == "build-table")
    shown = table_cell.outputs[-1]["data"]["text/plain"]
    scores = fold_f1(frame)
    for model in NOISE:  # the first fold's F1 of each model, as scikit-learn computes it
        assert f"{scores.loc[1, model]:.6f}" in shown


# -- 8. a plan from a 10×10 pilot of predictions ----------------------------------------------
def test_a_plan_from_a_ten_by_ten_pilot_of_predictions_plans_the_metric(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pilot = kfold_predictions(records=200, folds=10, replications=10, seed=3)
    data = tmp_path / "pilot.parquet"
    pilot.to_parquet(data)
    csv = tmp_path / "plan.csv"
    status = main(
        ["plan", str(data), "-f", FORMULA, "--metric", "accuracy", "--prediction", "pred",
         "logreg", "nb", "--effect", "0.03", "--designs", "10x10,5x2", "--csv", str(csv)]
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert status == 0
    assert "effect to detect (accuracy)" in printed
    assert "Pilot: 10×10 cross-validation (m = 10, K = 10, n = 200 records" in _flat(printed)
    losses = pilot.assign(loss=(pilot["pred"] != pilot["y"]).astype(int))
    table = cvreport.ResultsTable.from_formula("loss ~ model | replication + fold", losses)
    expected = cvreport.plan(table, "logreg", "nb", effect=0.03, designs=["10x10", "5x2"])
    assert pd.read_csv(csv)["power"].to_numpy() == pytest.approx(
        expected.to_frame()["power"].to_numpy(), abs=1e-12
    )


def test_a_plan_says_the_power_beside_no_design_is_the_best_found() -> None:
    """Was: "none  0.5628" under "Smallest design reaching the power", read as the test's
    power though no design reaches the wanted power and that one rejects too often."""
    pilot = kfold_predictions(records=200, folds=10, replications=10, seed=3)
    losses = pilot.assign(loss=(pilot["pred"] != pilot["y"]).astype(int))
    table = cvreport.ResultsTable.from_formula("loss ~ model | replication + fold", losses)
    result = cvreport.plan(table, "logreg", "tree", effect=0.002, designs=["10x10", "5x2"])
    lines = str(result).splitlines()
    for rec in result.recommendations:
        assert rec.design is None  # an effect this small is out of reach on these designs
        row = next(line for line in lines if line.strip().startswith(rec.label))
        assert row.split(rec.label, 1)[1].split()[:4] == [
            "none",
            "(best",
            "found)",
            f"{rec.power:.4f}",
        ]
    frame = result.to_frame()
    for rec in result.recommendations:
        assert rec.power == pytest.approx(frame.loc[frame["test"] == rec.test, "power"].max())


def test_a_disagreement_of_tests_not_recommended_alone_is_not_called_borderline() -> None:
    """Was: "rely on the recommended test (...), and read the disagreement as a sign that
    the evidence is borderline" where only a test not recommended disagreed."""
    from cvreport.reporting import interpret

    one_side = interpret.disagreement_sentence(
        "A",
        "B",
        rejecting=["paired t test", "corrected t test"],
        not_rejecting=["sign test"],
        alpha=0.05,
        recommended=["corrected t test"],
    )
    assert one_side is not None
    assert "rely on the recommended test (corrected t test): only tests not recommended" in one_side
    assert "disagree with it" in one_side and "borderline" in one_side
    assert "does not make the evidence borderline" in one_side
    both = interpret.disagreement_sentence(
        "A",
        "B",
        rejecting=["corrected t test"],
        not_rejecting=["Bayesian correlated t test"],
        alpha=0.05,
        recommended=["corrected t test", "Bayesian correlated t test"],
    )
    assert both is not None and "recommended tests themselves disagree" in both
    assert "read the evidence as borderline" in both


def test_the_report_never_scrolls_sideways_on_a_phone(browser: Any, tmp_path: Path) -> None:
    """Was: the example report was 403 px wide at 320–380 px: the facts grid kept its names'
    width and a non-breaking metric expression ("prediction != truth") stuck out."""
    table = cvreport.ResultsTable.from_predictions(
        cvreport.load_example(), truth="truth", prediction="prediction"
    )  # as `cvreport report --example` builds it
    path = tmp_path / "report.html"
    cvreport.Report(table).save(path)
    page = browser.new_page(viewport={"width": 320, "height": 800})
    page.goto(path.as_uri())
    wide = {}
    for width in range(320, 481, 16):
        page.set_viewport_size({"width": width, "height": 800})
        scrolled = page.evaluate("document.documentElement.scrollWidth")
        if scrolled > width:
            wide[width] = scrolled
    page.close()
    assert wide == {}


def test_the_baseline_caption_says_how_many_comparisons_its_holm_family_holds() -> None:
    """Was: "p-values of a data set adjusted with Holm's step-down procedure": a baseline's
    family is its k − 1 comparisons, not the k(k − 1)/2 pairs of the win/tie/loss matrix,
    so one pair could be marked worse here and tie there without a word why."""
    frame = cvreport.load_example("multi")
    table = cvreport.DatasetsTable.from_formula(
        "loss ~ model | replication + fold | dataset", frame
    )
    baseline = table.models[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        markdown = cvreport.DatasetsReport(table, baseline=baseline).to_markdown()
    others = len(table.models) - 1
    shown = str(baseline).replace("_", "\\_")
    assert (
        f"adjusted with Holm's step-down procedure over its {others} comparisons with {shown}"
        in markdown
    )


def test_a_verdict_gives_the_p_value_that_decides_first() -> None:
    """Was: "No significant difference at α = 0.05 (…, p = 0.027, adjusted p = 0.082)": a
    reader met p = 0.027 < α first, beside a verdict the adjusted p decides."""
    table = cvreport.ResultsTable.from_predictions(
        cvreport.load_example(), truth="truth", prediction="prediction"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = cvreport.Report(table)
    checked = 0
    for outcome in report.outcomes:
        if outcome.adjusted is None or not outcome.recommended:
            continue
        adjusted = f"adjusted p = {outcome.adjusted:.3f}"
        raw = f"unadjusted p = {outcome.result.pvalue:.3f}"
        assert f"{adjusted}; {raw}" in report.to_markdown()
        checked += 1
    assert checked == 3  # the example's three pairs
