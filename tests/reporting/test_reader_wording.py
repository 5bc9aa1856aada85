"""Wording a reader meets in rendered reports: no code names, no "None", no claim that is false.

Each test renders a report as a user would and reads its sentences.
"""

from __future__ import annotations

import html
import re
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport.methods.kfold import KFOLD_T_CAUTION
from cvreport.methods.registry import get_spec
from cvreport.reporting.report import Report
from tests._fakes import route_tests
from tests.reporting.test_reader_points import _predictions

pytest.importorskip("sklearn.datasets")


def quiet(*args: object, **kwargs: object) -> Report:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Report(*args, **kwargs)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def holdout_auc_markdown() -> str:
    table = cvreport.ResultsTable.from_formula("roc_auc(y, p) ~ model", _predictions(kfold=False))
    return quiet(table).to_markdown()


@pytest.fixture(scope="module")
def example_all_markdown() -> str:
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example("random")
    )
    return quiet(table, tests="all").to_markdown()


def _bullets(markdown: str) -> list[str]:
    return [line[2:] for line in markdown.splitlines() if line.startswith("- ")]


def test_a_holdout_predictions_source_names_only_the_columns_given(
    holdout_auc_markdown: str,
) -> None:
    source = next(line for line in holdout_auc_markdown.splitlines() if "| Source |" in line)
    assert "None" not in source
    assert "model 'model', record 'record'" in source


def test_a_holdout_auc_is_not_said_to_be_compared_fold_by_fold_nor_audited(
    holdout_auc_markdown: str,
) -> None:
    # one hold-out split: no folds to compare by, and no overlap audit is shown
    assert "## Overlap audit" not in holdout_auc_markdown
    assert "overlap audit runs" not in holdout_auc_markdown
    assert "compared fold by fold" not in holdout_auc_markdown
    assert "computed once on the hold-out set" in holdout_auc_markdown


def test_a_per_fold_auc_with_audited_partitions_still_says_the_audit_runs() -> None:
    table = cvreport.ResultsTable.from_formula(
        "roc_auc(y, p) ~ model | rep + fold", _predictions(kfold=True)
    )
    markdown = quiet(table).to_markdown()
    assert "## Overlap audit" in markdown
    assert "so the overlap audit runs" in markdown


def test_a_single_kfold_run_of_auc_does_not_claim_an_overlap_audit() -> None:
    predictions = _predictions(kfold=True)
    table = cvreport.ResultsTable.from_formula(
        "roc_auc(y, p) ~ model | fold", predictions[predictions["rep"] == 0]
    )
    markdown = quiet(table).to_markdown()
    assert "## Overlap audit" not in markdown
    assert "overlap audit runs" not in markdown
    assert "compared fold by fold" in markdown


def test_a_test_warning_is_not_prefixed_by_the_code_name_after_its_label(
    example_all_markdown: str,
) -> None:
    bullets = _bullets(example_all_markdown)
    calibrated = _of(bullets, "Calibrated balanced 5×2cv F test")
    assert any("partitions are not balanced" in b for b in calibrated)
    for code in ("calibrated\\_ftest\\_5x2cv", "mcnemar\\_5x2bcv", "blocked\\_ttest\\_3x2cv"):
        assert not any(re.match(rf"[^:]+: {re.escape(code)}:", b) for b in bullets), code


def test_every_caveat_bullet_ends_as_a_sentence(example_all_markdown: str) -> None:
    tail = example_all_markdown.split("**Caveats for these tests**", 1)[1]
    caveats = _bullets(tail.split("### ", 1)[0])
    assert caveats
    assert all(c.rstrip().endswith((".", "?", "!")) for c in caveats), [
        c for c in caveats if not c.rstrip().endswith((".", "?", "!"))
    ]


def test_the_sign_test_appears_under_all_on_a_kfold_table() -> None:
    rng = np.random.default_rng(0)
    rows = [
        {"fold": f, "record": r, "model": m, "loss": int(rng.random() < rate)}
        for f in range(10)
        for r in range(30 * f, 30 * f + 30)
        for m, rate in (("a", 0.2), ("b", 0.3))
    ]
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | fold", pd.DataFrame(rows), record="record"
    )
    markdown = quiet(table, tests="all").to_markdown()
    assert "| Sign test over K-fold differences" in markdown
    assert "- Sign test over K-fold differences: at α = 0.05" in markdown
    assert "Dixon, W. J., Mood, A. M. (1946)" in markdown


def test_a_datasets_formula_given_to_results_table_points_to_datasets_table() -> None:
    frame = cvreport.load_example("multi")
    with pytest.raises(cvreport.errors.FormulaError, match=r"DatasetsTable\.from_formula"):
        cvreport.ResultsTable.from_formula("loss ~ model | replication + fold | dataset", frame)
    multi = cvreport.DatasetsTable.from_formula(
        "loss ~ model | replication + fold | dataset", frame
    )
    assert len(multi.tables) == frame["dataset"].nunique() == 10


# -- caveats and notes of the K-fold, DeLong and resampling tests, read as a reader does --------

KFOLD_BASELINES = (
    "K-fold cross-validated paired t test",
    "Wilcoxon signed-rank test over K-fold differences",
    "Sign test over K-fold differences",
)


def _kfold_loss_table() -> cvreport.ResultsTable:
    rng = np.random.default_rng(0)
    rows = [
        {"fold": f, "record": r, "model": m, "loss": int(rng.random() < rate)}
        for f in range(10)
        for r in range(30 * f, 30 * f + 30)
        for m, rate in (("a", 0.2), ("b", 0.3))
    ]
    return cvreport.ResultsTable.from_formula(
        "loss ~ model | fold", pd.DataFrame(rows), record="record"
    )


def _kfold_auc_table() -> cvreport.ResultsTable:
    predictions = _predictions(kfold=True)
    return cvreport.ResultsTable.from_formula(
        "roc_auc(y, p) ~ model | fold", predictions[predictions["rep"] == 0]
    )


def _markdown_caveats(markdown: str) -> list[str]:
    """The "Caveats for these tests" bullets of every pair, without Markdown's escapes."""
    caveats = []
    for part in markdown.split("**Caveats for these tests**")[1:]:
        block = re.split(r"\n#+ ", part, maxsplit=1)[0]
        caveats += [re.sub(r"\\(.)", r"\1", b) for b in _bullets(block)]
    return caveats


def _html_caveats(page: str) -> list[str]:
    """The same bullets in the HTML report, tags removed and entities decoded."""
    items = []
    for block in re.findall(r'<ul class="cvr-warnings">(.*?)</ul>', page, flags=re.S):
        for item in re.findall(r"<li[^>]*>(.*?)</li>", block, flags=re.S):
            items.append(html.unescape(re.sub(r"<[^>]+>", "", item)).strip())
    return items


def _of(caveats: list[str], method: str) -> list[str]:
    """What the caveats say of one test: its own bullets and those it shares with others."""
    # a name after the first of a list is written as inside a sentence (lower-case first letter)
    name = f"[{method[0]}{method[0].lower()}]{re.escape(method[1:])}"
    named = re.compile(rf"^(?:[^:]*?(?:, | and ))?{name}(?:(?:, | and )[^:]*?)?: (.*)$")
    return [m[1] for m in map(named.match, caveats) if m]


@pytest.fixture(scope="module", params=["loss", "auc"])
def kfold_all_caveats(request: pytest.FixtureRequest) -> tuple[list[str], list[str], str]:
    table = _kfold_loss_table() if request.param == "loss" else _kfold_auc_table()
    report = quiet(table, tests="all")
    markdown = report.to_markdown()
    return _markdown_caveats(markdown), _html_caveats(report.to_html()), markdown


def test_each_kfold_baseline_says_its_overlap_caution_once_in_words(
    kfold_all_caveats: tuple[list[str], list[str], str],
) -> None:
    markdown_caveats, html_caveats, markdown = kfold_all_caveats
    for caveats in (markdown_caveats, html_caveats):
        for method in KFOLD_BASELINES:
            own = _of(caveats, method)
            about_overlap = [c for c in own if "overlap" in c]
            assert len(about_overlap) == 1, (method, own)
            (caution,) = about_overlap
            assert caution.startswith("not recommended as the deciding test — ")
            assert "rejects a true null hypothesis too often" in caution
            # what to use instead is named as the report names that test, not as a function
            assert "corrected repeated K-fold CV t test" in caution
            assert "corrected_repeated_kfold_ttest" not in caution
            assert "cv_confidence_interval" not in caution
            assert not re.search(r"\b[a-z0-9]+_[a-z0-9_]+\b", caution), caution
    assert "| Corrected repeated K-fold CV t test (recommended) |" in markdown


def test_the_api_summary_of_a_kfold_baseline_gives_its_caution_once() -> None:
    differences = [0.02, -0.01, 0.03, 0.015, 0.04]
    for result in (
        cvreport.arrays.paired_ttest_kfold(differences),
        cvreport.arrays.wilcoxon_kfold(differences),
        cvreport.arrays.sign_test(differences),
    ):
        text = " ".join(result.summary().as_text().split())
        assert text.count("overlap, so") == 1, result.method
        assert "corrected repeated K-fold CV t test" in text


@pytest.fixture(scope="module")
def holdout_auc_report() -> Report:
    table = cvreport.ResultsTable.from_formula("roc_auc(y, p) ~ model", _predictions(kfold=False))
    return quiet(table, tests="all")


def test_a_two_sided_holdout_report_names_no_one_sided_alternative(
    holdout_auc_report: Report,
) -> None:
    markdown = holdout_auc_report.to_markdown()
    page = holdout_auc_report.to_html()
    for text in (markdown, page):
        assert "'greater'" not in text and "‘greater’" not in text
        assert "H1: AUC(A) \\> AUC(B)" not in text and "H1: AUC(A) &gt; AUC(B)" not in text
        assert "one-sided, roc" not in text
    # DeLong's test and the bootstrap ran two-sided, and the report says so once, in its preamble
    assert "| DeLong's test of two correlated AUCs (recommended) |" in markdown
    assert "| Paired bootstrap test |" in markdown
    assert markdown.count("H₁ is that the two models differ") == 1
    assert _of(_markdown_caveats(markdown), "DeLong's test of two correlated AUCs") == []
    assert _of(_markdown_caveats(markdown), "Paired bootstrap test") == []


def test_a_one_sided_note_names_the_alternative_that_was_run_in_lower_case() -> None:
    table = cvreport.ResultsTable.from_formula("roc_auc(y, p) ~ model", _predictions(kfold=False))
    options = {
        "delong_test": {"alternative": "greater"},
        "paired_bootstrap_test": {"alternative": "less", "n_resamples": 199, "random_state": 0},
    }
    report = quiet(table, tests="all", test_options=options)
    for caveats in (_markdown_caveats(report.to_markdown()), _html_caveats(report.to_html())):
        assert _of(caveats, "DeLong's test of two correlated AUCs") == [
            "the alternative hypothesis is one-sided, roc_auc(A) > roc_auc(B)."
        ]
        assert _of(caveats, "Paired bootstrap test") == [
            "the alternative hypothesis is one-sided, roc_auc(A) < roc_auc(B)."
        ]


def test_resampling_notes_within_folds_read_on_after_the_colon() -> None:
    options = {"n_resamples": 199, "random_state": 0}
    report = quiet(
        _kfold_auc_table(),
        tests=["paired_bootstrap_test", "paired_permutation_test"],
        test_options={"paired_bootstrap_test": options, "paired_permutation_test": options},
    )
    caveats = _markdown_caveats(report.to_markdown())
    bootstrap = _of(caveats, "Paired bootstrap test")
    permutation = _of(caveats, "Paired permutation test (approximate randomization)")
    assert bootstrap[0].startswith("the draws stay within each validation fold: ")
    assert permutation[0].startswith("the draws stay within each validation fold: ")
    # the BCa note follows the note that says the draws stay within the folds
    assert bootstrap[1].startswith("BCa needs a jackknife of one sample; within folds")
    assert len(bootstrap) == len(permutation) + 1 == 2


@pytest.mark.parametrize("kind", ["kfold loss", "kfold auc", "holdout auc"])
def test_no_caveat_of_a_test_starts_with_a_capital_word_after_its_colon(kind: str) -> None:
    tables = {
        "kfold loss": _kfold_loss_table,
        "kfold auc": _kfold_auc_table,
        "holdout auc": lambda: cvreport.ResultsTable.from_formula(
            "roc_auc(y, p) ~ model", _predictions(kfold=False)
        ),
    }
    options = {"alternative": "greater", "n_resamples": 199, "random_state": 0}
    report = quiet(
        tables[kind](),
        tests="all",
        test_options={"delong_test": {"alternative": "greater"}, "paired_bootstrap_test": options},
    )
    caveats = _markdown_caveats(report.to_markdown())
    assert caveats
    for caveat in caveats:
        after = caveat.split(": ", 1)[1]
        # an acronym (BCa, AUC, H1) may open it; an ordinary word is in lower case
        assert not re.match(r"[A-Z][a-z]", after), caveat


def test_a_kfold_t_test_reported_in_place_of_the_corrected_one_keeps_its_caution_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the corrected t test cannot run, so the K-fold t test is reported in its place as the
    # recommended test: its caution is then its own note, said once and not "not recommended"
    def resolve(name: str) -> Any:
        def run(table: Any, a: str, b: str, **options: Any) -> Any:
            if name == "corrected_repeated_kfold_ttest":
                raise cvreport.errors.DesignError("the fold sizes are not known")
            return get_spec(name).run(table, a, b, **options)

        return run

    route_tests(monkeypatch, resolve)
    markdown = quiet(_kfold_loss_table()).to_markdown()
    method = "K-fold cross-validated paired t test"
    assert f"| {method} (recommended) |" in markdown
    own = _of(_markdown_caveats(markdown), method)
    assert [c for c in own if "overlap" in c] == [f"{KFOLD_T_CAUTION}."]
    assert not any("not recommended" in c for c in own)


def test_the_resampled_t_baseline_says_its_caution_once_in_words() -> None:
    from tests._designs import TABLES

    report = quiet(TABLES["repeated_holdout"], tests="all")
    for caveats in (_markdown_caveats(report.to_markdown()), _html_caveats(report.to_html())):
        own = _of(caveats, get_spec("paired_ttest_resampled").method)
        about_overlap = [c for c in own if "overlap" in c]
        assert len(about_overlap) == 1, own
        (caution,) = about_overlap
        assert caution.startswith("not recommended as the deciding test — the repeated splits")
        assert "corrected resampled t test" in caution
        assert not re.search(r"\b[a-z0-9]+_[a-z0-9_]+\b", caution), caution
        for caveat in caveats:  # no caveat opens with a capitalised word after its colon
            assert not re.match(r"[A-Z][a-z]", caveat.split(": ", 1)[1]), caveat


def test_few_clusters_read_on_after_their_colon_in_the_report() -> None:
    rng = np.random.default_rng(1)
    rows = [
        {"record": r, "cluster": r // 12, "model": m, "loss": int(rng.random() < e)}
        for r in range(120)
        for m, e in (("a", 0.2), ("b", 0.35))
    ]
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model", pd.DataFrame(rows), record="record", cluster="cluster"
    )
    clustered = cvreport.clustered_paired_test(table, "a", "b")
    few = [n for n in clustered.notes if "clusters: cluster-robust" in n]
    assert few == [n for n in few if n.startswith("only 10 clusters: ")] != []
    caveats = _markdown_caveats(quiet(table, tests="all").to_markdown())
    assert any("only 10 clusters: cluster-robust" in c for c in caveats), caveats
