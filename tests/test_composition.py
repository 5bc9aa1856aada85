"""Composition is the contract: every outcome × source × one/many data sets × entry.

Modelled on scikit-learn's ``check_estimator``: one table of cells and one
comparison. The data are made once (fixed seed: three models, 3×2 CV on 60
records grouped in clusters of three, two data sets). Each outcome — 0/1
loss, real loss, a formula expression, per-fold scores, predicted labels with
``f1`` / ``balanced_accuracy`` / ``matthews_corrcoef``, probabilities with
``roc_auc`` / ``log_loss`` / ``average_precision``, a cluster column — is read
from every source (pandas, Polars eager and lazy, PyArrow, DuckDB, Parquet,
CSV, Dask, local Spark), for one data set and for many, through every API
route that takes it. Each cell must give the pandas reference's design,
statistics, per-fold values and differences (1e-12), every row of the
report's ``to_frame()`` and the report's text; a refused cell must raise the
same typed error, with the same message, from every source (the table of
refused cells is in docs/input-and-limits.md).

Every (outcome × source × one/many) cell runs through the API; the notebook
context (``Report`` and ``explore()``), ``cvreport report``, ``cvreport
notebook`` (executed with nbclient, all notebooks in one kernel) and
``cvreport datasets`` run over a covering subset: every source, outcome and
entry at least once. A failing test lists every failing cell, not only the
first.
"""

from __future__ import annotations

import itertools
import json
import re
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

import cvreport
from cvreport import DatasetsTable, ResultsTable
from cvreport.errors import CVReportError, DataError, DesignError
from tests._engines import need as _need
from tests._heap import freeze_heap

SEED = 21
MODELS = ("lr", "tree", "knn")
SKILL = {"lr": 1.4, "tree": 1.1, "knn": 0.8}
DATASETS = ("d1", "d2")
N_RECORDS, REPLICATIONS, FOLDS, CLUSTER_SIZE = 60, 3, 2, 3
SAMPLES = 2000  # Bayesian draws of the many-data-sets report (seed 0)
TOLERANCE = {"rtol": 1e-12, "atol": 1e-12}
KEYS = "model | replication + fold"


# -- the data, made once ---------------------------------------------------------------
def _records() -> pd.DataFrame:
    """Per-record predictions of three models, 3×2 CV with folds drawn by cluster, shuffled.

    Columns ``dataset, replication, fold, model, record, doc`` (the record's
    cluster), ``truth``, ``pred``, ``proba``, ``err`` (0/1 loss) and ``sqerr``
    (a real loss, the record's Brier score).
    """
    rng = np.random.default_rng(SEED)
    n_docs = N_RECORDS // CLUSTER_SIZE
    doc = np.arange(N_RECORDS) // CLUSTER_SIZE
    frames = []
    for dataset in DATASETS:
        truth = rng.permutation(np.arange(N_RECORDS) % 2)
        for replication in range(1, REPLICATIONS + 1):
            fold_of_doc = np.empty(n_docs, dtype=int)
            fold_of_doc[rng.permutation(n_docs)] = np.arange(n_docs) % FOLDS + 1
            for model in MODELS:
                margin = (2 * truth - 1) * SKILL[model] + rng.normal(0.0, 1.0, N_RECORDS)
                proba = 1.0 / (1.0 + np.exp(-margin))
                pred = (proba > 0.5).astype(int)
                frames.append(
                    pd.DataFrame(
                        {
                            "dataset": dataset,
                            "replication": replication,
                            "fold": fold_of_doc[doc],
                            "model": model,
                            "record": [f"r{i:03d}" for i in range(N_RECORDS)],
                            "doc": [f"c{i:02d}" for i in doc],
                            "truth": truth,
                            "pred": pred,
                            "proba": proba,
                            "err": (pred != truth).astype(float),
                            "sqerr": (proba - truth) ** 2,
                        }
                    )
                )
    frame = pd.concat(frames, ignore_index=True)
    return frame.sample(frac=1.0, random_state=SEED).reset_index(drop=True)


def _fold_scores(records: pd.DataFrame) -> pd.DataFrame:
    """One AUC per (dataset, replication, fold, model), by scikit-learn."""
    keys = ["dataset", "replication", "fold", "model"]
    rows = [
        (*key, roc_auc_score(group["truth"], group["proba"]))
        for key, group in records.groupby(keys, sort=True)
    ]
    frame = pd.DataFrame(rows, columns=[*keys, "auc"])
    return frame.sample(frac=1.0, random_state=SEED).reset_index(drop=True)


RECORDS = _records()
FRAMES = {
    ("records", "many"): RECORDS,
    ("folds", "many"): _fold_scores(RECORDS),
}
for _kind in ("records", "folds"):
    _many = FRAMES[(_kind, "many")]
    FRAMES[(_kind, "one")] = (
        _many[_many["dataset"] == DATASETS[0]].drop(columns="dataset").reset_index(drop=True)
    )


# -- the table of cells ----------------------------------------------------------------
Route = tuple[str, Callable[[Any], Any]]


@dataclass(frozen=True)
class Outcome:
    """One kind of outcome: its data, its API routes and its command-line flags.

    ``one`` and ``many`` list the API routes (label, build from data) that must
    all give the same numbers; the first is the reference route of the
    command-line entries. ``flags`` are the command-line input flags for the
    formula ``formula`` (``" | dataset"`` is appended for many data sets).
    """

    name: str
    data: str  # "records" or "folds"
    one: tuple[Route, ...]
    many: tuple[Route, ...]
    formula: str
    flags: tuple[str, ...] = ()


def _loss(name: str, column: str) -> Outcome:
    formula = f"{column} ~ {KEYS}"
    return Outcome(
        name,
        "records",
        one=(("from_formula", lambda d: ResultsTable.from_formula(formula, d)),),
        many=(("from_formula", lambda d: DatasetsTable.from_formula(f"{formula} | dataset", d)),),
        formula=formula,
    )


def _metric(metric: str, column: str) -> Outcome:
    given = {"score" if column == "proba" else "prediction": column}
    formula = f"{metric}(truth, {column}) ~ {KEYS}"
    return Outcome(
        f"{metric}",
        "records",
        one=(
            ("from_formula", lambda d: ResultsTable.from_formula(formula, d)),
            (
                "from_predictions",
                lambda d: ResultsTable.from_predictions(d, truth="truth", metric=metric, **given),
            ),
        ),
        many=(
            ("from_formula", lambda d: DatasetsTable.from_formula(f"{formula} | dataset", d)),
            (
                "from_predictions",
                lambda d: DatasetsTable.from_predictions(d, truth="truth", metric=metric, **given),
            ),
        ),
        formula=f"truth ~ {KEYS}",
        flags=("--metric", metric, "--score" if column == "proba" else "--prediction", column),
    )


EXPRESSION = f"{{pred != truth}} ~ {KEYS}"
OUTCOMES = [
    _loss("0/1 loss", "err"),
    _loss("real loss", "sqerr"),
    Outcome(
        "expression",
        "records",
        one=(
            ("from_formula", lambda d: ResultsTable.from_formula(EXPRESSION, d)),
            (
                "from_predictions",
                lambda d: ResultsTable.from_predictions(d, truth="truth", prediction="pred"),
            ),
        ),
        many=(
            ("from_formula", lambda d: DatasetsTable.from_formula(f"{EXPRESSION} | dataset", d)),
            (
                "from_predictions",
                lambda d: DatasetsTable.from_predictions(d, truth="truth", prediction="pred"),
            ),
        ),
        formula=EXPRESSION,
    ),
    Outcome(
        "per-fold score",
        "folds",
        one=(
            (
                "from_formula",
                lambda d: ResultsTable.from_formula(f"auc ~ {KEYS}", d, per_fold=True),
            ),
            ("from_fold_scores", lambda d: ResultsTable.from_fold_scores(d, score="auc")),
        ),
        many=(
            (
                "from_formula",
                lambda d: DatasetsTable.from_formula(f"auc ~ {KEYS} | dataset", d, per_fold=True),
            ),
        ),
        formula=f"auc ~ {KEYS}",
        flags=("--per-fold",),
    ),
    _metric("f1", "pred"),
    _metric("balanced_accuracy", "pred"),
    _metric("matthews_corrcoef", "pred"),
    _metric("roc_auc", "proba"),
    _metric("log_loss", "proba"),
    _metric("average_precision", "proba"),
    Outcome(
        "cluster",
        "records",
        one=(
            (
                "from_formula",
                lambda d: ResultsTable.from_formula(f"err ~ {KEYS}", d, cluster="doc"),
            ),
            (
                "cluster(doc) term",
                lambda d: ResultsTable.from_formula(f"err ~ {KEYS} + cluster(doc)", d),
            ),
            (
                "from_predictions",
                lambda d: ResultsTable.from_predictions(
                    d, truth="truth", prediction="pred", cluster="doc"
                ),
            ),
        ),
        many=(
            (
                "cluster(doc) term",
                lambda d: DatasetsTable.from_formula(f"err ~ {KEYS} + cluster(doc) | dataset", d),
            ),
            (
                "from_predictions",
                lambda d: DatasetsTable.from_predictions(
                    d, truth="truth", prediction="pred", cluster="doc"
                ),
            ),
        ),
        formula=f"err ~ {KEYS}",
        flags=("--cluster", "doc"),
    ),
]
OUTCOME = {outcome.name: outcome for outcome in OUTCOMES}
SOURCES = (
    "pandas",
    "polars",
    "polars-lazy",
    "pyarrow",
    "duckdb",
    "parquet",
    "csv",
    "dask",
    "spark",
)
FILES = ("parquet", "csv")
SHAPES = ("one", "many")


@pytest.fixture(scope="module", autouse=True)
def _frozen_heap() -> None:
    """Freeze the objects alive after the imports: the reports' ``gc.collect()`` stays cheap.

    They stay frozen past this module, as the run's other frozen objects (tests/conftest.py).
    """
    freeze_heap()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("composition")


@pytest.fixture(scope="module")
def convert(request: pytest.FixtureRequest, folder: Path) -> Callable[[str, str, str], Any]:
    """``convert(source, kind, shape)``: the frame ``FRAMES[kind, shape]`` as that source."""
    written: dict[tuple[str, str, str], str] = {}
    built: dict[tuple[str, str, str], Any] = {}

    def to_source(source: str, kind: str, shape: str) -> Any:
        frame = FRAMES[(kind, shape)]
        if source == "pandas":
            return frame.copy()
        if source in ("polars", "polars-lazy"):
            data = _need("polars").from_pandas(frame)
            return data.lazy() if source == "polars-lazy" else data
        if source in ("pyarrow", "duckdb"):
            pa = _need("pyarrow")
            table = pa.Table.from_pandas(frame, preserve_index=False)
            return _need("duckdb").from_arrow(table) if source == "duckdb" else table
        if source in FILES:
            if (source, kind, shape) not in written:
                path = folder / f"{kind}-{shape}.{source}"
                if source == "parquet":
                    frame.to_parquet(path, row_group_size=max(1, frame.shape[0] // 3))
                else:
                    frame.to_csv(path, index=False)
                written[(source, kind, shape)] = str(path)
            return written[(source, kind, shape)]
        if (source, kind, shape) not in built:  # immutable frames, built once per module
            if source == "dask":
                request.getfixturevalue("dask_client")
                data = _need("dask.dataframe").from_pandas(frame, npartitions=3, sort=False)
            elif source == "spark":
                data = request.getfixturevalue("spark").createDataFrame(frame).cache()
            else:
                raise AssertionError(source)
            built[(source, kind, shape)] = data
        return built[(source, kind, shape)]

    return to_source


# -- the one comparison ----------------------------------------------------------------
_VOLATILE = [
    # the source row names the frame or file the rows came from; the rest must agree
    (re.compile(r"^\| Source \| .* \|$", re.MULTILINE), "| Source | SOURCE |"),
    (re.compile(r"cvreport \d+\.\d+[\w.+-]*"), "cvreport VERSION"),
    (re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?"), "TIME"),
]


def normalise(text: str) -> str:
    """The report's text without its volatile parts: the source, the version, time stamps."""
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text


def _pairs(models: tuple[Any, ...]) -> list[tuple[Any, Any]]:
    return list(itertools.combinations(models, 2))


def _table_summary(table: ResultsTable) -> dict[str, Any]:
    """The numbers and facts of one table (no report)."""
    stats = table.stats
    folds = table.fold_errors()
    keys = [c for c in folds.columns if c != "loss"]
    facts = {
        "models": table.models,
        "replications": tuple(map(str, table.replications)),
        "folds": tuple(map(str, table.folds)),
        "design": (table.design.kind, str(table.design)),
        "metric": table.metric,
        "direction": (table.higher_is_better, table.direction_note),
        "kind": (table.is_binary, table.per_record, table.has_records),
        "loss_name": table.loss_name,
        "fold keys": folds[keys].astype(str).to_numpy().tolist(),
    }
    arrays = {
        "counts": stats.counts,
        "sums": stats.sums,
        "sumsq": stats.sumsq,
        "both_wrong": stats.both_wrong,
        "fold values": folds["loss"].to_numpy(dtype=float),
    }
    for a, b in _pairs(table.models):
        arrays[f"differences {a} − {b}"] = table.differences(a, b).to_numpy(dtype=float)
    return {"facts": facts, "arrays": arrays}


def summarise(table: Any) -> dict[str, Any]:
    """Everything a cell must reproduce: facts, numbers, the report's rows and text."""
    if isinstance(table, DatasetsTable):
        from cvreport.reporting.multi_report import DatasetsReport

        report = DatasetsReport(table, n_samples=SAMPLES, seed=0)
        summary: dict[str, Any] = {
            "facts": {
                "datasets": table.datasets,
                "models": table.models,
                "metric": table.metric,
                "level": table.level,
            },
            "arrays": {
                "means": table.means().to_numpy(dtype=float),
                "sds": table.sds().to_numpy(dtype=float),
            },
        }
        for name, part in table.tables.items():
            inner = _table_summary(part)
            summary["facts"][f"data set {name}"] = inner["facts"]
            for key, value in inner["arrays"].items():
                summary["arrays"][f"data set {name}: {key}"] = value
        summary["frame"] = None
        summary["text"] = normalise(report.to_markdown())
        return summary
    summary = _table_summary(table)
    report = cvreport.Report(table)
    summary["frame"] = report.to_frame()
    summary["text"] = normalise(report.to_markdown())
    return summary


def _same_frame(ours: pd.DataFrame, theirs: pd.DataFrame) -> None:
    assert list(ours.columns) == list(theirs.columns)
    assert ours.shape == theirs.shape, (ours.shape, theirs.shape)
    numeric = theirs.select_dtypes("number").columns
    assert (
        ours.drop(columns=numeric).astype(str).to_numpy().tolist()
        == theirs.drop(columns=numeric).astype(str).to_numpy().tolist()
    )
    np.testing.assert_allclose(
        ours[numeric].to_numpy(dtype=float), theirs[numeric].to_numpy(dtype=float), **TOLERANCE
    )


def assert_same(ours: dict[str, Any], reference: dict[str, Any]) -> None:
    """The one comparison of every cell: facts equal, numbers to 1e-12, rows and text equal."""
    for key, expected in reference["facts"].items():
        assert ours["facts"].get(key) == expected, (
            f"{key}: {ours['facts'].get(key)!r} != {expected!r}"
        )
    assert set(ours["arrays"]) == set(reference["arrays"])
    for key, expected in reference["arrays"].items():
        got = ours["arrays"][key]
        if expected is None:
            assert got is None, f"{key}: expected none"
            continue
        assert got is not None, f"{key}: missing"
        np.testing.assert_allclose(
            np.asarray(got, dtype=float),
            np.asarray(expected, dtype=float),
            err_msg=key,
            **TOLERANCE,
        )
    if reference["frame"] is not None:
        _same_frame(ours["frame"], reference["frame"])
    assert_same_text(ours["text"], reference["text"])


def assert_same_text(ours: str, reference: str) -> None:
    """The same report text; else the first differing lines (ours, the reference's)."""
    if ours != reference:
        diff = [
            (a, b)
            for a, b in itertools.zip_longest(ours.splitlines(), reference.splitlines())
            if a != b
        ]
        raise AssertionError(f"the report's text differs; first lines (ours, pandas): {diff[:2]}")


_REFERENCES: dict[tuple[str, str, str], dict[str, Any]] = {}


def reference(outcome: Outcome, shape: str, route: str = "") -> dict[str, Any]:
    """The pandas reference of a route (by default the outcome's first route)."""
    routes = dict(getattr(outcome, shape))
    route = route or next(iter(routes))
    key = (outcome.name, shape, route)
    if key not in _REFERENCES:
        _REFERENCES[key] = summarise(routes[route](FRAMES[(outcome.data, shape)].copy()))
    return _REFERENCES[key]


def _failure(cell: str, error: BaseException) -> str:
    where = traceback.extract_tb(error.__traceback__)[-1]
    place = f" ({Path(where.filename).name}:{where.lineno})"
    return f"{cell}: {type(error).__name__}: {str(error).splitlines()[0][:400]}{place}"


def _report(failures: list[str], cells: int) -> None:
    if failures:
        pytest.fail(f"{len(failures)} of {cells} cells fail:\n" + "\n".join(failures))


# -- every (outcome × source × one/many) cell through the API ----------------------------
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("source", SOURCES)
def test_every_api_cell_matches_the_pandas_reference(source, shape, convert):
    failures, cells = [], 0
    for outcome in OUTCOMES:
        for route, build in getattr(outcome, shape):
            cells += 1
            cell = f"{outcome.name} × {source} × {shape} × {route}"
            try:
                expected = reference(outcome, shape, route)
                table = build(convert(source, outcome.data, shape))
                assert_same(summarise(table), expected)
            except Exception as error:  # every failing cell is listed, not only the first
                failures.append(_failure(cell, error))
    _report(failures, cells)


@pytest.mark.parametrize("shape", SHAPES)
def test_every_route_of_an_outcome_gives_the_same_numbers(shape):
    """Formula, keywords and predictions spell one outcome: one set of per-fold values."""
    failures, cells = [], 0
    for outcome in OUTCOMES:
        routes = [route for route, _ in getattr(outcome, shape)]
        first = None
        for route in routes:
            cells += 1
            try:
                arrays = reference(outcome, shape, route)["arrays"]
                if first is None:
                    first = arrays
                    continue
                for key, expected in first.items():
                    if key.endswith(("both_wrong", "sumsq", "counts")) or expected is None:
                        continue  # a score negated into a loss keeps its values only
                    np.testing.assert_allclose(arrays[key], expected, err_msg=key, **TOLERANCE)
            except Exception as error:
                failures.append(_failure(f"{outcome.name} × {shape} × {route}", error))
    _report(failures, cells)


def test_the_per_fold_values_are_recomputed_independently():
    """Each fold's value by pandas or scikit-learn, per model, against the reference table."""
    from sklearn import metrics

    mean_of = {"0/1 loss": "err", "real loss": "sqerr", "expression": "err", "cluster": "err"}
    functions = {
        "f1": (metrics.f1_score, "pred"),
        "balanced_accuracy": (metrics.balanced_accuracy_score, "pred"),
        "matthews_corrcoef": (metrics.matthews_corrcoef, "pred"),
        "roc_auc": (metrics.roc_auc_score, "proba"),
        "log_loss": (metrics.log_loss, "proba"),
        "average_precision": (metrics.average_precision_score, "proba"),
    }
    keys = ["replication", "fold", "model"]
    for outcome in OUTCOMES:
        frame = FRAMES[(outcome.data, "one")]
        groups = frame.groupby(keys, sort=True)
        if outcome.name in mean_of:
            expected = groups[mean_of[outcome.name]].mean()
        elif outcome.name in functions:
            function, column = functions[outcome.name]
            expected = groups.apply(lambda g, f=function, c=column: f(g["truth"], g[c]))
        else:
            expected = groups["auc"].mean()
        table = outcome.one[0][1](frame.copy())
        folds = table.fold_errors()
        got = pd.Series(
            np.asarray(table.to_metric(folds["loss"].to_numpy(dtype=float))),
            index=pd.MultiIndex.from_frame(folds[keys]),
        ).sort_index()
        assert got.index.tolist() == expected.index.tolist(), outcome.name
        np.testing.assert_allclose(
            got.to_numpy(), expected.to_numpy(dtype=float), err_msg=outcome.name, **TOLERANCE
        )


# -- the notebook context: Report and explore() ------------------------------------------
def _covering(names: tuple[str, ...]) -> list[tuple[str, str]]:
    """(outcome, name) pairs in which every outcome and every name appears."""
    count = max(len(OUTCOMES), len(names))
    return [(OUTCOMES[i % len(OUTCOMES)].name, names[i % len(names)]) for i in range(count)]


def _displayed(shown: Any) -> str:
    bundle = shown._repr_mimebundle_()
    return normalise(bundle["text/markdown"])


@pytest.mark.parametrize("shape", SHAPES)
def test_report_and_explore_in_a_notebook(shape, convert):
    pytest.importorskip("ipywidgets")
    from cvreport.reporting.multi_report import DatasetsReport

    failures, cells = [], 0
    for name, source in _covering(SOURCES):
        outcome = OUTCOME[name]
        cells += 1
        build = getattr(outcome, shape)[0][1]
        try:
            expected = reference(outcome, shape)
            table = build(convert(source, outcome.data, shape))
            if shape == "one":
                assert_same_text(_displayed(cvreport.Report(table)), expected["text"])
                app = cvreport.explore(table, output_format="markdown")
                wanted = cvreport.explore(
                    outcome.one[0][1](FRAMES[(outcome.data, shape)].copy()),
                    output_format="markdown",
                )
                assert_same_text(normalise(app.output.value), normalise(wanted.output.value))
                assert "error" not in app.output.value.lower()[:200]
            else:
                shown = DatasetsReport(table, n_samples=SAMPLES, seed=0)
                assert_same_text(_displayed(shown), expected["text"])
        except Exception as error:
            failures.append(_failure(f"{name} × {source} × {shape} × notebook context", error))
    _report(failures, cells)


# -- the command line: report, datasets, notebook -----------------------------------------
ENGINES = ("pandas", "duckdb", "polars")


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from cvreport.cli import main

    try:
        status = main(argv)
    except SystemExit as exit:  # argparse refuses the command line
        status = f"{exit.code} (argparse)"
    captured = capsys.readouterr()
    assert status == 0, f"exit {status}: {captured.err.strip()[:400]}"
    assert captured.err == "", captured.err


def _cli_cells() -> list[tuple[str, str, str]]:
    """(outcome, file source, engine): every outcome, both files, every engine."""
    files = itertools.cycle(FILES)
    engines = itertools.cycle(ENGINES)
    return [(outcome.name, next(files), next(engines)) for outcome in OUTCOMES]


@pytest.mark.parametrize("command", ["report", "datasets"])
def test_the_command_line_gives_the_apis_report(command, convert, folder, capsys):
    shape = "one" if command == "report" else "many"
    failures, cells = [], 0
    for name, source, engine in _cli_cells():
        outcome = OUTCOME[name]
        cells += 1
        cell = f"{name} × {source} × {shape} × cvreport {command} --engine {engine}"
        out = folder / f"{command}-{outcome.data}-{len(name)}-{cells}.md"
        formula = outcome.formula + (" | dataset" if shape == "many" else "")
        argv = [command, convert(source, outcome.data, shape), "-f", formula, *outcome.flags]
        argv += ["--engine", engine, "-o", str(out), "--overwrite"]
        if command == "datasets":
            argv += ["--samples", str(SAMPLES)]
        try:
            _cli(argv, capsys)
            text = normalise(out.read_text(encoding="utf-8"))
            assert_same_text(text, reference(outcome, shape)["text"])
        except Exception as error:
            failures.append(_failure(cell, error))
    _report(failures, cells)


_CHECK = """\
import json
print(json.dumps({"text": report.to_markdown(),
                  "values": table.fold_errors()["loss"].tolist()}))
"""


def test_cvreport_notebook_executed_gives_the_apis_numbers_and_report(convert, folder, capsys):
    """Every outcome's notebook, written by ``cvreport notebook``, run in one kernel."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    failures, combined, checks = [], nbformat.v4.new_notebook(), {}
    for index, (name, source, _) in enumerate(_cli_cells()):
        outcome = OUTCOME[name]
        path = folder / f"notebook-{index}.ipynb"
        argv = ["notebook", convert(source, outcome.data, "one"), "-f", outcome.formula]
        argv += [*outcome.flags, "-o", str(path), "--overwrite"]
        try:
            _cli(argv, capsys)
        except Exception as error:
            failures.append(_failure(f"{name} × {source} × one × cvreport notebook", error))
            continue
        written = nbformat.read(path, as_version=4)
        for cell in written.cells:
            if cell.cell_type == "code" and cell.get("id") != "explore":
                combined.cells.append(nbformat.v4.new_code_cell(cell.source))
        combined.cells.append(nbformat.v4.new_code_cell(_CHECK))
        checks[len(combined.cells) - 1] = (name, source)
    client = nbclient.NotebookClient(
        combined,
        kernel_name="python3",
        timeout=300,
        allow_errors=True,
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute()
    for index, (name, source) in checks.items():
        cell = f"{name} × {source} × one × cvreport notebook"
        try:
            outputs = combined.cells[index].outputs
            errors = [o for o in outputs if o.output_type == "error"]
            assert not errors, f"{errors[0].ename}: {errors[0].evalue}" if errors else ""
            printed = json.loads("".join(o.text for o in outputs if o.output_type == "stream"))
            expected = reference(OUTCOME[name], "one")
            np.testing.assert_allclose(
                printed["values"],
                expected["arrays"]["fold values"],
                err_msg="the notebook's per-fold values",
                **TOLERANCE,
            )
            assert_same_text(normalise(printed["text"]), expected["text"])
        except Exception as error:
            failures.append(_failure(cell, error))
    _report(failures, len(_cli_cells()))


# -- refused cells: the same typed error from every source --------------------------------
@dataclass(frozen=True)
class Refused:
    """A cell the library refuses, with the error it must raise everywhere."""

    name: str
    data: tuple[str, str]  # (kind, shape) of FRAMES
    call: Callable[[Any], Any]
    error: type[CVReportError]
    says: str


AUC = f"roc_auc(truth, proba) ~ {KEYS}"
REFUSED = [
    Refused(
        "a metric from predictions read as per-fold scores (one data set)",
        ("records", "one"),
        lambda d: ResultsTable.from_formula(AUC, d, per_fold=True),
        DataError,
        "not one score per fold",
    ),
    Refused(
        "a metric from predictions read as per-fold scores (many data sets)",
        ("records", "many"),
        lambda d: DatasetsTable.from_formula(f"{AUC} | dataset", d, per_fold=True),
        DataError,
        "not one score per fold",
    ),
    Refused(
        "clusters of per-fold scores",
        ("folds", "one"),
        lambda d: ResultsTable.from_formula(f"auc ~ {KEYS} + cluster(doc)", d, per_fold=True),
        DataError,
        "cluster",
    ),
    Refused(
        "the overlap audit of per-fold scores",
        ("folds", "one"),
        lambda d: cvreport.audit_overlap(ResultsTable.from_fold_scores(d, score="auc")),
        DesignError,
        "needs per-record losses or predictions",
    ),
    Refused(
        "a rank metric from predicted labels",
        ("records", "one"),
        lambda d: ResultsTable.from_predictions(
            d, truth="truth", prediction="pred", metric="roc_auc"
        ),
        DataError,
        "needs scores",
    ),
    Refused(
        "a label metric from probabilities",
        ("records", "many"),
        lambda d: DatasetsTable.from_predictions(d, truth="truth", score="proba", metric="f1"),
        DataError,
        "needs predicted labels",
    ),
    Refused(
        "explore() of many data sets",
        ("records", "many"),
        lambda d: cvreport.explore(DatasetsTable.from_formula(f"err ~ {KEYS} | dataset", d)),
        CVReportError,
        "DatasetsReport",
    ),
]


@pytest.mark.parametrize("refused", REFUSED, ids=[r.name for r in REFUSED])
def test_a_refused_cell_is_the_same_typed_error_from_every_source(refused, convert):
    kind, shape = refused.data
    failures = []
    try:
        with pytest.raises(refused.error, match=re.escape(refused.says)) as raised:
            refused.call(FRAMES[refused.data].copy())
        expected = raised.value
    except (Exception, pytest.fail.Exception) as error:
        pytest.fail(_failure(f"{refused.name} × pandas", error))
    for source in SOURCES[1:]:
        try:
            with pytest.raises(CVReportError) as raised:
                refused.call(convert(source, kind, shape))
            assert type(raised.value) is type(expected), type(raised.value).__name__
            assert str(raised.value) == str(expected), str(raised.value)[:300]
        except (Exception, pytest.fail.Exception) as error:
            failures.append(_failure(f"{refused.name} × {source}", error))
    _report(failures, len(SOURCES) - 1)


def test_the_notebook_command_refuses_an_engine(convert, folder, capsys):
    """``cvreport notebook`` reads DATA with pandas: ``--engine duckdb`` is refused, by name."""
    from cvreport.cli import main

    out = folder / "refused.ipynb"
    argv = ["notebook", convert("parquet", "records", "one"), "-f", f"err ~ {KEYS}"]
    status = main([*argv, "--engine", "duckdb", "-o", str(out)])
    err = capsys.readouterr().err
    assert status == 1 and err.startswith("cvreport: error: ") and "Traceback" not in err, err
    assert "--engine duckdb" in err, err
    assert not out.exists()


def test_the_table_of_refused_cells_is_documented():
    text = (Path(__file__).parents[1] / "docs" / "input-and-limits.md").read_text(encoding="utf-8")
    section = text.split("### Refused combinations", 1)[-1]
    for refused in REFUSED:
        assert f"| {refused.name} |" in section, refused.name
    assert "| `cvreport notebook --engine duckdb` (or `polars`) |" in section
