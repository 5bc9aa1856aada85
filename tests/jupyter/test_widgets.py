"""The ipywidgets explorer, driven from plain pytest: no browser, no kernel.

Each test sets control values the way a user would (``.value = ...``) and
reads the report region back. The HTML report marks every test row with
``data-test`` inside a table marked ``data-pair``, and every cell with
``data-field``; the numbers found there must equal the result objects'
numbers as cvreport.rendering.formatting prints them.
"""

from __future__ import annotations

import html
import subprocess
import sys
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport.partitions.splits import RandomMx2CV
from cvreport.rendering.formatting import format_number, format_pvalue
from tests._fakes import model_losses

ipywidgets = pytest.importorskip("ipywidgets")

MODELS = ("logistic", "tree", "knn")

# The tables below use random partitions on purpose (their recommended test is the
# combined F); the BCV McNemar test then warns that they are not balanced.
pytestmark = pytest.mark.filterwarnings("ignore::cvreport.errors.PartitionWarning")


def _losses(seed: int = 3, n: int = 240) -> pd.DataFrame:
    """0/1 losses of three models on a random 5×2 partitioning of n records.

    Each model errs on a fixed set of records, so the fold errors differ through
    the partitions only (Dietterich's loss model with three error rates).
    """
    rng = np.random.default_rng(seed)
    assignment = RandomMx2CV(m=5, random_state=seed).assignment(n)
    return model_losses(assignment, dict(zip(MODELS, (0.12, 0.22, 0.17))), rng, n)


@pytest.fixture(scope="module")
def table() -> cvreport.ResultsTable:
    return cvreport.ResultsTable.from_formula("loss ~ model | replication + fold", _losses())


@pytest.fixture
def app(table: cvreport.ResultsTable):
    return cvreport.explore(table)


class _TestRows(HTMLParser):
    """Collect ``{(pair label, test name): {field: text}}`` from the report's test tables."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: dict[tuple[str, str], dict[str, str]] = {}
        self._pair: str | None = None
        self._row: dict[str, str] | None = None
        self._field: str | None = None
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "table" and attributes.get("data-pair"):
            self._pair = attributes["data-pair"]
        elif tag == "tr" and self._pair is not None and attributes.get("data-test"):
            self._row = self.rows.setdefault((self._pair, str(attributes["data-test"])), {})
        elif self._row is not None and tag in ("td", "th") and attributes.get("data-field"):
            self._field = attributes["data-field"]
            self._row[self._field] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th"):
            self._field = None
        elif tag == "tr":
            self._row = None
        elif tag == "table":
            self._pair = None

    def handle_data(self, data: str) -> None:
        if self._row is not None and self._field is not None:
            self._row[self._field] += data


def test_rows(output: str) -> dict[tuple[str, str], dict[str, str]]:
    parser = _TestRows()
    parser.feed(output)
    return parser.rows


test_rows.__test__ = False  # type: ignore[attr-defined]  # a helper, not a test


def _shown_pairs(output: str) -> set[str]:
    return {pair for pair, _ in test_rows(output)}


def test_default_shows_every_pair_with_the_recommended_test(app, table) -> None:
    # three models: all pairs, the design's recommended test (random 5×2 → combined F)
    assert app.all_pairs.value is True
    assert app.test_set.value == "recommended"
    assert app.error is None
    rows = test_rows(app.output.value)
    assert _shown_pairs(app.output.value) == {
        "logistic vs tree",
        "logistic vs knn",
        "tree vs knn",
    }
    assert {name for _, name in rows} == {"combined_ftest_5x2cv"}
    for a, b in [("logistic", "tree"), ("logistic", "knn"), ("tree", "knn")]:
        result = cvreport.combined_ftest_5x2cv(table, a, b)
        cells = rows[(f"{a} vs {b}", "combined_ftest_5x2cv")]
        assert cells["statistic"] == format_number(result.statistic)
        assert cells["pvalue"] == format_pvalue(result.pvalue)


def test_holm_adjusted_pvalues_follow_the_correction_control(app, table) -> None:
    pairs = [("logistic", "tree"), ("logistic", "knn"), ("tree", "knn")]
    raw = np.array([cvreport.combined_ftest_5x2cv(table, a, b).pvalue for a, b in pairs])

    # Holm by hand: sort ascending, multiply the i-th smallest by (3 − i), running maximum, cap 1
    order = np.argsort(raw)
    stepped = np.minimum(1.0, np.maximum.accumulate(raw[order] * np.array([3, 2, 1])))
    holm = np.empty(3)
    holm[order] = stepped
    rows = test_rows(app.output.value)
    for (a, b), expected in zip(pairs, holm):
        assert rows[(f"{a} vs {b}", "combined_ftest_5x2cv")]["adjusted"] == format_pvalue(expected)

    app.correction.value = "bonferroni"
    rows = test_rows(app.output.value)
    assert app.report is not None and app.report.correction == "bonferroni"
    for (a, b), p in zip(pairs, raw):
        cells = rows[(f"{a} vs {b}", "combined_ftest_5x2cv")]
        assert cells["adjusted"] == format_pvalue(min(1.0, 3 * p))
        assert cells["pvalue"] == format_pvalue(p)

    app.correction.value = "none"
    rows = test_rows(app.output.value)
    assert all("adjusted" not in cells for cells in rows.values())


def test_choosing_one_pair_shows_only_that_pair(app, table) -> None:
    app.all_pairs.value = False
    app.model_a.value = "knn"
    app.model_b.value = "logistic"
    assert app.model_a.disabled is False
    assert _shown_pairs(app.output.value) == {"knn vs logistic"}
    result = cvreport.combined_ftest_5x2cv(table, "knn", "logistic")
    cells = test_rows(app.output.value)[("knn vs logistic", "combined_ftest_5x2cv")]
    assert cells["statistic"] == format_number(result.statistic)
    assert cells["pvalue"] == format_pvalue(result.pvalue)
    assert cells["estimate"] == format_number(result.estimate)
    # the estimate is A − B: knn (17%) minus logistic (12%) is positive here
    assert result.estimate is not None and result.estimate > 0
    assert "adjusted" not in cells  # one pair: nothing to adjust

    app.all_pairs.value = True
    assert app.model_a.disabled is True
    assert len(_shown_pairs(app.output.value)) == 3


def test_selecting_tests_switches_to_the_selection(app, table) -> None:
    app.all_pairs.value = False  # logistic vs tree
    app.tests.value = ("mcnemar_5x2bcv", "paired_ttest_5x2cv")
    assert app.test_set.value == "selected"
    assert app.report is not None and app.report.test_names == [
        "mcnemar_5x2bcv",
        "paired_ttest_5x2cv",
    ]
    rows = test_rows(app.output.value)
    assert {name for _, name in rows} == {"mcnemar_5x2bcv", "paired_ttest_5x2cv"}
    for name in ("mcnemar_5x2bcv", "paired_ttest_5x2cv"):
        result = getattr(cvreport, name)(table, "logistic", "tree")
        cells = rows[("logistic vs tree", name)]
        assert cells["statistic"] == format_number(result.statistic)
        assert cells["pvalue"] == format_pvalue(result.pvalue)

    app.test_set.value = "all"
    names = {name for _, name in test_rows(app.output.value)}
    assert {"combined_ftest_5x2cv", "mcnemar_5x2bcv", "paired_ttest_5x2cv"} <= names

    app.test_set.value = "selected"
    app.tests.value = ()
    assert app.report is None
    assert "no test selected" in app.output.value


def test_alpha_changes_the_decisions(table) -> None:
    app = cvreport.explore(table, a="logistic", b="tree", tests="all")
    rows = test_rows(app.output.value)
    pvalues = {name: getattr(cvreport, name)(table, "logistic", "tree").pvalue for _, name in rows}
    decisions = {name: rows[("logistic vs tree", name)]["decision"] for name in pvalues}
    assert set(decisions.values()) <= {"yes", "no"}
    for name, p in pvalues.items():
        assert decisions[name] == ("yes" if p <= 0.05 else "no"), name

    # a level between two of the p-values must flip the decisions in between
    strictly = sorted(p for p in pvalues.values() if 0.0001 < p < 0.5)
    assert len(strictly) >= 2, pvalues
    alpha = round((strictly[0] + strictly[-1]) / 2, 4)
    app.alpha.value = alpha
    assert app.report is not None and app.report.alpha == pytest.approx(alpha)
    assert f"α = {alpha:g}" in app.output.value
    rows = test_rows(app.output.value)
    for name, p in pvalues.items():
        assert rows[("logistic vs tree", name)]["decision"] == ("yes" if p <= alpha else "no")

    # sweeping α keeps a bounded number of reports around
    for step in range(1, 3 * app.CACHE_SIZE):
        app.alpha.value = step / 1000
    assert len(app._cache) == app.CACHE_SIZE
    assert app.report is not None and app.report.alpha == pytest.approx(
        (3 * app.CACHE_SIZE - 1) / 1000
    )


def test_markdown_and_latex_show_the_source(app, table) -> None:
    app.all_pairs.value = False
    result = cvreport.combined_ftest_5x2cv(table, "logistic", "tree")

    app.output_format.value = "markdown"
    assert app.output.value.startswith("<pre")
    source = html.unescape(app.output.value.split(">", 1)[1].rsplit("</pre>", 1)[0])
    assert source == app.report.to_markdown()
    assert "logistic vs tree" in source
    assert format_number(result.statistic) in source

    app.output_format.value = "latex"
    source = html.unescape(app.output.value.split(">", 1)[1].rsplit("</pre>", 1)[0])
    assert source == app.report.to_latex()
    assert "\\toprule" in source
    assert format_number(result.statistic) in source
    assert format_pvalue(result.pvalue, less_than="$<$") in source

    report = app.report
    app.output_format.value = "html"
    assert app.report is report  # a format change recomputes nothing


def test_same_model_twice_is_explained_not_raised(app) -> None:
    app.all_pairs.value = False
    app.model_b.value = "logistic"
    assert app.report is None
    assert "both 'logistic'" in app.error
    assert "both &#x27;logistic&#x27;" in app.output.value
    app.save()
    assert "nothing to save" in app.status.value


def test_save_is_atomic_and_refuses_to_overwrite(app, tmp_path) -> None:
    app.all_pairs.value = False
    app.output_format.value = "latex"
    app.path.value = str(tmp_path / "appendix")  # no suffix: the format's is added
    app.save_button.click()
    target = tmp_path / "appendix.tex"
    assert target.read_text(encoding="utf-8") == app.report.to_latex()
    assert "Saved the report to" in app.status.value
    assert html.escape(str(target)) in app.status.value

    app.model_b.value = "knn"
    app.save_button.click()  # exists and overwrite is not ticked: refused, file untouched
    assert "exists" in app.status.value and "overwrite" in app.status.value
    assert "logistic vs knn" not in target.read_text(encoding="utf-8")

    app.overwrite.value = True
    app.save_button.click()
    assert "logistic vs knn" in target.read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["appendix.tex"]  # no temporary left

    app.path.value = str(tmp_path / "no-such-folder" / "report.html")
    assert app.save() is None
    assert "does not exist" in app.status.value

    app.path.value = str(tmp_path / "report.docx")
    assert app.save() is None
    assert "cannot tell the report format" in app.status.value


def test_the_app_displays_as_a_widget(app) -> None:
    from IPython.core.formatters import format_display_data

    data, _ = format_display_data(app)
    assert "application/vnd.jupyter.widget-view+json" in data
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == app.widget.model_id
    assert app.output in app.widget.children


def test_initial_choices_and_their_errors(table) -> None:
    app = cvreport.explore(
        table, a="tree", b="knn", tests="mcnemar_5x2bcv", alpha=0.1, output_format="markdown"
    )
    assert (app.all_pairs.value, app.model_a.value, app.model_b.value) == (False, "tree", "knn")
    assert app.test_set.value == "selected" and app.tests.value == ("mcnemar_5x2bcv",)
    assert app.output.value.startswith("<pre")
    assert "tree vs knn" in app.output.value

    with pytest.raises(cvreport.CVReportError, match="mcnemar"):
        cvreport.explore(table, tests=["mcnemar"])  # a hold-out test on a 5×2 table
    with pytest.raises(cvreport.DataError, match="forest"):
        cvreport.explore(table, a="forest", b="tree")
    with pytest.raises(cvreport.CVReportError, match="output_format"):
        cvreport.explore(table, output_format="pdf")


def test_a_formula_and_data_work_too() -> None:
    app = cvreport.explore("loss ~ model | replication + fold", _losses(seed=5))
    assert len(_shown_pairs(app.output.value)) == 3


def test_import_cvreport_loads_no_front_end() -> None:
    code = (
        "import sys, cvreport, cvreport.jupyter.widgets, cvreport.jupyter.notebook, cvreport.options\n"
        "loaded = [m for m in ('ipywidgets', 'nbformat', 'IPython') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_initial_alpha_and_correction_are_checked_not_clamped(table) -> None:
    for alpha in (0, 1, -0.1, True):
        with pytest.raises(cvreport.CVReportError, match="alpha must lie strictly between 0 and 1"):
            cvreport.explore(table, alpha=alpha)
    with pytest.raises(cvreport.CVReportError, match="unknown correction 'BH'"):
        cvreport.explore(table, correction="BH")  # not an ipywidgets TraitError
    # an unusual but valid α is kept as given (the control's bounds widen), not clamped to 0.5
    app = cvreport.explore(table, alpha=0.6)
    assert app.alpha.value == 0.6
    assert app.report is not None and app.report.alpha == 0.6
