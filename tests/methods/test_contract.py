"""One contract, checked for every test of the registry.

Every test unpacks as ``statistic, pvalue``, has a summary in four formats,
mirrors under swapping A and B, refuses a design it does not accept with a
DesignError, and gives the same numbers from the table, the array-level
function and the kernel fed by its spec's inputs, for one table and for a
batch of tables. A test added to the registry is checked here without a line
of its own.
"""

from __future__ import annotations

import dataclasses
import html
import inspect
import math
import re
import warnings

import numpy as np
import pytest

import cvreport
from cvreport import arrays, methods
from cvreport.data.sufficient import FoldStatistics
from cvreport.errors import DesignError
from cvreport.methods import recommendation
from cvreport.methods.registry import SPECS, get_spec, markdown_table, specs_for
from cvreport.methods.spec import DESIGN_KINDS
from cvreport.results import TestResult
from cvreport.simulate.plan import default_design
from cvreport.simulate.runners import RUNNERS
from tests._designs import BY_DESIGN, ONE_MODEL, PAIRED, TABLES, run, two_sided


@pytest.mark.parametrize("spec", BY_DESIGN, ids=lambda spec: spec.name)
def test_every_test_is_public_and_unpacks_with_a_summary(spec):
    assert getattr(cvreport, spec.name) is spec.function
    assert getattr(methods, spec.name) is spec.function
    if spec.array_function is not None:
        assert getattr(arrays, spec.name) is spec.array_function
    table = TABLES[spec.designs[0]]
    args = ("A",) if spec.models == 1 else ("A", "B")
    result = run(spec, table, *args)
    assert isinstance(result, spec.result) and isinstance(result, TestResult)
    assert result.test == spec.name
    assert spec.method in result.method
    statistic, pvalue = result
    assert (statistic, pvalue) == (result.statistic, result.pvalue)
    assert 0.0 <= pvalue <= 1.0
    summary = result.summary()
    assert result.method in summary.as_text()
    assert result.method in summary.as_markdown()
    assert result.method in html.unescape(summary.as_html())
    assert "\\begin{" in summary.as_latex()


@pytest.mark.parametrize("spec", PAIRED, ids=lambda spec: spec.name)
def test_swapping_a_and_b_mirrors_the_estimate_and_keeps_the_p_value(spec):
    table = TABLES[spec.designs[0]]
    forward = run(spec, table, "A", "B", **two_sided(spec))
    backward = run(spec, table, "B", "A", **two_sided(spec))
    assert backward.pvalue == pytest.approx(forward.pvalue, rel=1e-9, abs=1e-12)
    assert backward.reject(0.05) == forward.reject(0.05)
    if forward.estimate is not None:
        assert backward.estimate == pytest.approx(-forward.estimate, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("spec", PAIRED, ids=lambda spec: spec.name)
def test_a_design_the_test_does_not_accept_is_refused(spec):
    refused = [kind for kind in DESIGN_KINDS if not spec.accepts_design(TABLES[kind].design)]
    assert refused, f"{spec.name} accepts every design"
    for kind in refused:
        with pytest.raises(DesignError, match=spec.name):
            run(spec, TABLES[kind], "A", "B")


@pytest.mark.parametrize("spec", PAIRED, ids=lambda spec: spec.name)
def test_every_design_the_report_runs_the_test_on_is_accepted(spec):
    for kind in spec.designs:
        assert spec.accepts_design(TABLES[kind].design)


SIMULATED = [spec for spec in SPECS if spec.simulated]


@pytest.mark.parametrize("spec", SIMULATED, ids=lambda spec: spec.name)
def test_table_array_and_kernel_agree_on_one_table_and_on_a_batch(spec):
    table = TABLES[spec.designs[0]]
    result = run(spec, table, "A", "B")
    pair = table.stats.pair(table.models.index("A"), table.models.index("B"))
    inputs = spec.inputs(pair)
    kernel = spec.kernel(*inputs)
    assert float(kernel.pvalue) == pytest.approx(result.pvalue, rel=1e-12)
    assert float(kernel.statistic) == pytest.approx(result.statistic, rel=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        array_result = spec.array_function(*inputs)
    assert array_result.pvalue == pytest.approx(result.pvalue, rel=1e-12)
    # a batch of three data sets: the same pair, its mirror and the pair again
    mirrored = pair.swapped()
    batch = dataclasses.replace(
        pair,
        differences=np.stack([pair.differences, mirrored.differences, pair.differences]),
        tables=None
        if pair.tables is None
        else np.stack([pair.tables, mirrored.tables, pair.tables]),
    )
    assert isinstance(batch, FoldStatistics) and batch.reps == 3
    batched = np.asarray(spec.kernel(*spec.inputs(batch)).pvalue)
    assert batched.shape == (3,)
    swapped = run(spec, table, "B", "A").pvalue  # differs from A, B for a one-sided default
    np.testing.assert_allclose(batched, [result.pvalue, swapped, result.pvalue], rtol=1e-12)
    assert default_design(RUNNERS[spec.name]).kind in spec.designs


def test_one_spec_per_name_and_the_report_list_reads_the_registry():
    names = [spec.name for spec in SPECS]
    assert len(names) == len(set(names))
    assert set(names) == set(methods.__all__) - {"delong_tests_per_fold"}
    assert {name for name in arrays.__all__ if name != "contingency_posteriors"} == {
        spec.name for spec in SPECS if spec.array_function is not None
    }
    for spec in ONE_MODEL:
        assert not spec.in_report
    assert [s.name for s in specs_for("kfold", binary=True, per_record=True)] == [
        "corrected_repeated_kfold_ttest",
        "paired_ttest_kfold",
        "wilcoxon_kfold",
        "sign_test",
        "cv_confidence_interval",
        "mcnemar_kfold",
        "bayesian_correlated_ttest",
    ]


@pytest.mark.parametrize("kind", DESIGN_KINDS)
@pytest.mark.parametrize("partitions", [None, "random", "balanced"])
def test_every_recommended_test_is_registered_and_fits(kind, partitions):
    advice = recommendation.recommendation(
        kind, partitions=partitions, binary=True, per_record=True
    )
    for name in advice.names + advice.fallbacks:
        assert get_spec(name).fits(kind, binary=True, per_record=True)


def test_the_docs_table_is_the_registry():
    with open("docs/methods.md", encoding="utf-8") as handle:
        docs = handle.read()
    assert markdown_table() in docs, "run python scripts/make_methods_table.py"


def test_wilcoxon_matches_scipy_on_every_alternative():
    stats = pytest.importorskip("scipy.stats")
    table = TABLES["kfold"]
    d = table.differences("A", "B").to_numpy().ravel()
    for alternative in ("two-sided", "less", "greater"):
        ours = cvreport.wilcoxon_kfold(table, "A", "B", alternative=alternative)
        theirs = stats.wilcoxon(d, alternative=alternative)
        assert ours.statistic == pytest.approx(float(theirs.statistic), rel=1e-12)
        assert ours.pvalue == pytest.approx(float(theirs.pvalue), rel=1e-12)
    assert ours.median == pytest.approx(float(np.median(d)))
    assert math.isclose(ours.estimate, float(d.mean()))


PUBLIC = [
    pytest.param(function, id=function.__name__)
    for spec in BY_DESIGN
    for function in (spec.function, spec.array_function)
    if function is not None
]


@pytest.mark.parametrize("function", PUBLIC)
def test_every_public_function_documents_every_parameter(function):
    doc = function.__doc__
    for section in ("Parameters", "Returns", "Raises", "Examples"):
        assert f"\n    {section}\n    ---" in doc, section
    documented = set()
    for match in re.finditer(r"^ {4}([\w, ]+) :", doc, re.M):
        documented |= {name.strip() for name in match.group(1).split(",")}
    assert set(inspect.signature(function).parameters) <= documented
    assert "{" + "pair_parameters}" not in doc  # the shared sections were filled in
