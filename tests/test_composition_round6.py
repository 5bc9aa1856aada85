"""The composition grid, round six: hostile model labels × outcome × source × layer × entry.

The data of :mod:`tests.test_composition` (three models, 3×2 CV on 60 records,
two data sets) with the models renamed to labels a report must escape and a
file must quote: HTML and LaTeX specials (``&``, ``%``, ``_``, ``<b>``),
non-ASCII letters and a newline. Every outcome kind (0/1 loss, real loss,
per-fold scores, predicted labels with F1, probabilities with AUC, log loss
and Brier score) is read from a covering set of sources (pandas, Polars eager
and lazy, PyArrow, DuckDB, Dask, Parquet and CSV paths, Spark in one cell), and
every layer must give the pandas reference's numbers (1e-12): the table API
(``cvreport.NAME``), the array API (``cvreport.arrays.NAME`` on the table's
differences), ``Report``, ``analyse``, ``plan`` and, for many data sets,
``compare_datasets``. The command line (``report --pairs-csv``, ``plan
--csv``, ``datasets``) gives the API's numbers from the files.

A failing test lists every failing cell, not only the first.
"""

from __future__ import annotations

import itertools
import re
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import cvreport
import cvreport.arrays as arrays
from cvreport import DatasetsTable, ResultsTable
from cvreport.cli import main
from cvreport.reporting.analyse import analyse
from tests._engines import need
from tests.test_composition import FRAMES, KEYS

LABELS = {"lr": "lr & <b>co</b>", "tree": "tree_50% ü", "knn": "knn\nv2 $x$"}
A, B = LABELS["lr"], LABELS["tree"]
TOLERANCE = {"rtol": 1e-12, "atol": 1e-12}
EFFECT = 0.05
RATIO = 1.0  # n2/n1 of 2-fold CV: the test set is as large as the training set
SAMPLES = 2000

HOSTILE = {
    key: frame.assign(model=frame["model"].map(LABELS)).reset_index(drop=True)
    for key, frame in FRAMES.items()
}

# outcome: (data kind, formula, keywords of from_formula)
OUTCOMES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "0/1 loss": ("records", f"err ~ {KEYS}", {}),
    "real loss": ("records", f"sqerr ~ {KEYS}", {}),
    "per-fold AUC": ("folds", f"auc ~ {KEYS}", {"per_fold": True, "test_train_ratio": RATIO}),
    "f1": ("records", f"f1(truth, pred) ~ {KEYS}", {}),
    "roc_auc": ("records", f"roc_auc(truth, proba) ~ {KEYS}", {}),
    "log_loss": ("records", f"log_loss(truth, proba) ~ {KEYS}", {}),
    "brier": ("records", f"brier_score_loss(truth, proba) ~ {KEYS}", {}),
}
SOURCES = ("polars", "polars-lazy", "pyarrow", "duckdb", "dask", "parquet", "csv")
# every outcome from pandas and two more sources, every source at least twice
CELLS = [("0/1 loss", "spark")] + [
    (outcome, source)
    for i, outcome in enumerate(OUTCOMES)
    for source in ("pandas", SOURCES[(2 * i) % 7], SOURCES[(2 * i + 1) % 7])
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("composition6")


@pytest.fixture(scope="module")
def convert(request: pytest.FixtureRequest, folder: Path) -> Callable[[str, str, str], Any]:
    """``convert(source, kind, shape)``: ``HOSTILE[kind, shape]`` as that source."""
    built: dict[tuple[str, str, str], Any] = {}

    def to_source(source: str, kind: str, shape: str) -> Any:
        frame = HOSTILE[(kind, shape)]
        if source == "pandas":
            return frame.copy()
        key = (source, kind, shape)
        if key in built:
            return built[key]
        if source in ("polars", "polars-lazy"):
            data = need("polars").from_pandas(frame)
            data = data.lazy() if source == "polars-lazy" else data
        elif source in ("pyarrow", "duckdb"):
            table = need("pyarrow").Table.from_pandas(frame, preserve_index=False)
            data = need("duckdb").from_arrow(table) if source == "duckdb" else table
        elif source == "parquet":
            data = str(folder / f"{kind}-{shape}.parquet")
            frame.to_parquet(data, row_group_size=max(1, frame.shape[0] // 3))
        elif source == "csv":
            data = str(folder / f"{kind}-{shape}.csv")
            frame.to_csv(data, index=False)
        elif source == "dask":
            request.getfixturevalue("dask_client")
            data = need("dask.dataframe").from_pandas(frame, npartitions=3, sort=False)
        elif source == "spark":
            data = request.getfixturevalue("spark").createDataFrame(frame).cache()
        else:
            raise AssertionError(source)
        built[key] = data
        return data

    return to_source


def _table(outcome: str, data: Any) -> ResultsTable:
    _, formula, keywords = OUTCOMES[outcome]
    return ResultsTable.from_formula(formula, data, **keywords)


def layers(table: ResultsTable) -> dict[str, np.ndarray]:
    """The numbers of every layer over one table (the pair A, B for the single tests)."""
    differences = table.differences(A, B).to_numpy(dtype=float).ravel()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api = cvreport.corrected_repeated_kfold_ttest(table, A, B, test_train_ratio=RATIO)
        by_arrays = arrays.corrected_repeated_kfold_ttest(differences, RATIO)
        blocked = cvreport.blocked_ttest_3x2cv(table, A, B)
        blocked_arrays = arrays.blocked_ttest_3x2cv(table.differences(A, B).to_numpy(dtype=float))
        report = cvreport.Report(table).to_frame()
        analysis = analyse(table)
        planned = cvreport.plan(table, A, B, effect=EFFECT).to_frame()
    numbers = {
        "table API: corrected t": np.array([api.statistic, api.pvalue, api.estimate]),
        "array API: corrected t": np.array(
            [by_arrays.statistic, by_arrays.pvalue, by_arrays.estimate]
        ),
        "table API: blocked 3×2 t": np.array([blocked.statistic, blocked.pvalue]),
        "array API: blocked 3×2 t": np.array([blocked_arrays.statistic, blocked_arrays.pvalue]),
        "Report": report[["pvalue", "pvalue_adjusted"]].to_numpy(dtype=float),
        "analyse": np.array([[o.result.pvalue, o.adjusted] for o in analysis.outcomes]),
        "plan": planned.select_dtypes("number").to_numpy(dtype=float),
    }
    assert list(map(str, report["model_a"])) == [o.a for o in analysis.outcomes]
    return numbers


_REFERENCE: dict[str, dict[str, np.ndarray]] = {}


def reference(outcome: str) -> dict[str, np.ndarray]:
    if outcome not in _REFERENCE:
        kind = OUTCOMES[outcome][0]
        _REFERENCE[outcome] = layers(_table(outcome, HOSTILE[(kind, "one")].copy()))
    return _REFERENCE[outcome]


def _failure(cell: str, error: BaseException) -> str:
    where = traceback.extract_tb(error.__traceback__)[-1]
    return f"{cell}: {type(error).__name__}: {str(error).splitlines()[0][:300]} ({where.lineno})"


def _report(failures: list[str], total: int) -> None:
    if failures:
        pytest.fail(f"{len(failures)} of {total} cells failed:\n" + "\n".join(failures))


def test_the_layers_of_the_pandas_reference_agree_with_each_other():
    """The table API equals the array API on the table's differences; Report equals analyse."""
    failures = []
    for outcome in OUTCOMES:
        try:
            numbers = reference(outcome)
            for layer in ("corrected t", "blocked 3×2 t"):
                np.testing.assert_allclose(
                    numbers[f"table API: {layer}"], numbers[f"array API: {layer}"], **TOLERANCE
                )
            np.testing.assert_allclose(numbers["Report"], numbers["analyse"], **TOLERANCE)
            assert numbers["plan"].size > 0
        except Exception as error:
            failures.append(_failure(outcome, error))
    _report(failures, len(OUTCOMES))


def test_the_corrected_t_of_the_reference_is_nadeau_and_bengios_by_hand():
    """An independent recomputation: t = mean / sqrt((1/J + n2/n1) s²) with J = 6 folds."""
    from scipy import stats

    for outcome in OUTCOMES:
        kind = OUTCOMES[outcome][0]
        table = _table(outcome, HOSTILE[(kind, "one")].copy())
        d = table.differences(A, B).to_numpy(dtype=float).ravel()
        t = d.mean() / np.sqrt((1 / d.size + RATIO) * d.var(ddof=1))
        p = 2 * stats.t.sf(abs(t), d.size - 1)
        statistic, pvalue, _ = reference(outcome)["table API: corrected t"]
        assert abs(statistic) == pytest.approx(abs(t), rel=1e-12), outcome
        assert pvalue == pytest.approx(p, rel=1e-12), outcome


@pytest.mark.parametrize(("outcome", "source"), CELLS, ids=[f"{o} × {s}" for o, s in CELLS])
def test_every_layer_of_a_cell_gives_the_pandas_numbers(outcome, source, convert):
    kind = OUTCOMES[outcome][0]
    expected = reference(outcome)
    ours = layers(_table(outcome, convert(source, kind, "one")))
    failures = []
    for layer, numbers in expected.items():
        try:
            np.testing.assert_allclose(ours[layer], numbers, err_msg=layer, **TOLERANCE)
        except AssertionError as error:
            failures.append(_failure(f"{outcome} × {source} × {layer}", error))
    _report(failures, len(expected))


@pytest.mark.parametrize("source", ["pandas", "polars-lazy", "duckdb", "csv"])
def test_compare_datasets_of_every_source_gives_the_pandas_ranks(source, convert):
    formula = f"err ~ {KEYS} | dataset"
    expected = cvreport.compare_datasets(
        DatasetsTable.from_formula(formula, HOSTILE[("records", "many")].copy()),
        n_samples=SAMPLES,
    )
    ours = cvreport.compare_datasets(
        DatasetsTable.from_formula(formula, convert(source, "records", "many")), n_samples=SAMPLES
    )
    assert set(ours.friedman.average_ranks.index) == set(LABELS.values())
    pd.testing.assert_series_equal(ours.friedman.average_ranks, expected.friedman.average_ranks)
    assert ours.friedman.pvalue == pytest.approx(expected.friedman.pvalue, rel=1e-12)


# -- the command line reads the files as the API reads the frames -----------------------


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    status = main(argv)
    captured = capsys.readouterr()
    assert status == 0, captured.err


@pytest.mark.parametrize(
    ("outcome", "source"), [("0/1 loss", "csv"), ("roc_auc", "parquet"), ("per-fold AUC", "csv")]
)
def test_the_report_command_gives_the_apis_p_values(outcome, source, convert, folder, capsys):
    kind, formula, keywords = OUTCOMES[outcome]
    path = convert(source, kind, "one")
    stem = re.sub(r"\W", "", outcome)
    out, pairs = folder / f"{stem}-{source}.md", folder / f"{stem}-{source}-pairs.csv"
    flags = ["--per-fold", "--test-train-ratio", "1"] if keywords.get("per_fold") else []
    _cli(["report", path, "-f", formula, *flags, "-o", str(out), "--pairs-csv", str(pairs)], capsys)
    expected = cvreport.Report(_table(outcome, HOSTILE[(kind, "one")].copy())).to_frame()
    written = pd.read_csv(pairs)
    assert set(written["model_a"]) | set(written["model_b"]) <= set(LABELS.values())
    merged = expected.merge(written, on=["test", "model_a", "model_b"], suffixes=("", "_cli"))
    assert len(merged) == len(expected) > 0
    np.testing.assert_allclose(merged["pvalue_cli"], merged["pvalue"], **TOLERANCE)
    text = out.read_text(encoding="utf-8")
    assert "lr \\& \\<b\\>co\\</b\\>" in text and "\\_50% ü" in text


@pytest.mark.parametrize(("outcome", "source"), [("real loss", "parquet"), ("brier", "csv")])
def test_the_plan_command_gives_the_apis_powers(outcome, source, convert, folder, capsys):
    kind, formula, _ = OUTCOMES[outcome]
    path = convert(source, kind, "one")
    stem = re.sub(r"\W", "", outcome)
    written = folder / f"plan-{stem}-{source}.csv"
    _cli(
        ["plan", path, A, B, "-f", formula, "--effect", str(EFFECT), "--csv", str(written)], capsys
    )
    expected = reference(outcome)["plan"]
    ours = pd.read_csv(written).select_dtypes("number").to_numpy(dtype=float)
    np.testing.assert_allclose(ours, expected, rtol=1e-9, atol=1e-12)  # printed as text


def test_the_datasets_command_gives_the_apis_ranks(convert, folder, capsys):
    path = convert("parquet", "records", "many")
    out = folder / "datasets.md"
    formula = f"err ~ {KEYS} | dataset"
    _cli(["datasets", path, "-f", formula, "-o", str(out)], capsys)
    expected = cvreport.compare_datasets(
        DatasetsTable.from_formula(formula, HOSTILE[("records", "many")].copy()),
        n_samples=SAMPLES,
    )
    text = out.read_text(encoding="utf-8")
    for model, rank in expected.friedman.average_ranks.items():
        assert f"{rank:.2f}" in text, (model, rank)
    assert "\\_50% ü" in text


def test_a_cell_is_named_once():
    assert len(set(CELLS)) == len(CELLS)
    assert {s for _, s in CELLS} >= {*SOURCES, "pandas", "spark"}
    assert all(sum(s == source for _, s in CELLS) >= 2 for source in SOURCES)
    assert list(itertools.chain(LABELS)) == ["lr", "tree", "knn"]
