"""What a reader takes away: the user's metric and direction, order invariance, intervals
beside their own estimates (property tests over random designs)."""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cvreport.data.table import ResultsTable
from cvreport.errors import DataError
from cvreport.reporting.report import Report

DESIGNS = {
    # kind: (m, K, formula blocks)
    "mx2": (5, 2, " | rep + k"),
    "kfold": (1, 5, " | k"),
    "repeated_kfold": (2, 4, " | rep + k"),
    "holdout": (1, 1, ""),
    "repeated_holdout": (4, 1, " | rep"),
}


def predictions_frame(kind: str, n: int, seed: int, p_a: float, p_b: float) -> pd.DataFrame:
    """Two classifiers' predictions on a random design: columns rep, k, clf, idx, y_true, y_pred.

    B errs on the same records as A with probability 0.6 (models err on hard records alike).
    """
    rng = np.random.default_rng(seed)
    m, n_folds, _ = DESIGNS[kind]
    rows = []
    truth = rng.integers(0, 2, n)
    for rep in range(1, m + 1):
        order = rng.permutation(n)
        if n_folds == 1:  # a validation set of half the records, different per replication
            folds = [order[: n // 2]]
        else:
            folds = np.array_split(order, n_folds)
        for k, records in enumerate(folds, 1):
            u = rng.random(len(records))
            v = np.where(rng.random(len(records)) < 0.6, u, rng.random(len(records)))
            for clf, wrong in (("alpha", u < p_a), ("beta", v < p_b)):
                predicted = np.where(wrong, 1 - truth[records], truth[records])
                rows.extend(
                    (rep, k, clf, int(i), int(truth[i]), int(p)) for i, p in zip(records, predicted)
                )
    frame = pd.DataFrame(rows, columns=["rep", "k", "clf", "idx", "y_true", "y_pred"])
    frame["accuracy"] = (frame["y_true"] == frame["y_pred"]).astype(int)
    return frame


def error_table(frame: pd.DataFrame, kind: str) -> ResultsTable:
    return ResultsTable.from_formula(
        "{y_pred != y_true} ~ clf" + DESIGNS[kind][2], frame, record="idx"
    )


def accuracy_table(frame: pd.DataFrame, kind: str) -> ResultsTable:
    return ResultsTable.from_formula("accuracy ~ clf" + DESIGNS[kind][2], frame, record="idx")


def quiet_report(table: ResultsTable, pair: tuple[str, str], **options: Any) -> Report:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Report(table, pairs=[pair], tests="all", **options)


designs = st.sampled_from(sorted(DESIGNS))
SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def random_designs(draw: Any) -> tuple[str, pd.DataFrame]:
    kind = draw(designs)
    n = draw(st.integers(24, 60)) * 2
    seed = draw(st.integers(0, 2**31 - 1))
    p_a = draw(st.floats(0.05, 0.45))
    p_b = draw(st.floats(0.05, 0.45))
    return kind, predictions_frame(kind, n, seed, p_a, p_b)


# -- canonical readings --------------------------------------------------------------
_NUMBER = re.compile(r"[-−]?\d+\.\d+(?:e[-+]?\d+)?")
_INTERVAL = re.compile(r"\[([-−]?\d+\.\d+(?:e[-+]?\d+)?), ([-−]?\d+\.\d+(?:e[-+]?\d+)?)\]")


def canonical(sentence: str, names: tuple[str, str]) -> str:
    """A sentence with the model names merged, signs dropped and interval ends sorted:
    what must not change when A and B are swapped."""
    text = _INTERVAL.sub(
        lambda m: "[{}, {}]".format(*sorted((x.lstrip("-−") for x in m.groups()), key=float)),
        sentence,
    )
    text = _NUMBER.sub(lambda m: m.group(0).lstrip("-−"), text)
    for name in names:
        text = text.replace(name, "<model>")
    return text


def claims(sentence: str) -> dict[str, Any]:
    """Which model the sentence calls better, by how much, and with what probability."""
    found: dict[str, Any] = {}
    better = re.search(r"(\w+) has the (higher|lower) mean ([\w ]+), by (\d+\.\d+)", sentence)
    if better:
        found["better"] = better.groups()
    found["probabilities"] = dict(
        re.findall(
            r"that (\w+) is (?:practically )?better(?: than \w+)? (?:is )?(\d\.\d+)", sentence
        )
    )
    found["significant"] = "is statistically significant" in sentence
    return found


# -- property tests ------------------------------------------------------------------
@SETTINGS
@given(random_designs())
def test_swapping_a_and_b_mirrors_every_number_and_keeps_every_decision(
    drawn: tuple[str, pd.DataFrame],
) -> None:
    kind, frame = drawn
    table = error_table(frame, kind)
    forward = quiet_report(table, ("alpha", "beta"))
    backward = quiet_report(table, ("beta", "alpha"))
    assert [o.name for o in forward.outcomes] == [o.name for o in backward.outcomes]
    for one, other in zip(forward.outcomes, backward.outcomes):
        assert one.reject == other.reject, one.name
        assert one.result.pvalue == pytest.approx(other.result.pvalue, rel=1e-9, abs=1e-12)
        if one.shown_estimate is not None:
            assert one.shown_estimate == pytest.approx(-other.shown_estimate, abs=1e-12)
        if one.shown_statistic is not None and one.result.distribution.split()[0] in (
            "t",
            "normal",
        ):
            assert one.shown_statistic == pytest.approx(-other.shown_statistic, abs=1e-9)
        elif one.shown_statistic is not None:
            assert one.shown_statistic == pytest.approx(other.shown_statistic, abs=1e-9)
        if one.shown_interval is not None:
            low, high = other.shown_interval
            assert one.shown_interval == pytest.approx((-high, -low), abs=1e-12)
        if one.posterior is not None:
            assert one.posterior.p_a_better == pytest.approx(other.posterior.p_b_better)
            assert one.posterior.p_equivalent == pytest.approx(other.posterior.p_equivalent)
        # the rendered sentence means the same thing
        names = ("alpha", "beta")
        assert claims(one.interpretation) == claims(other.interpretation), one.name
        if one.posterior is None:
            assert canonical(one.interpretation, names) == canonical(other.interpretation, names)
    lines = [
        (claims(f["text"]), claims(b["text"]))
        for f, b in zip(forward.context()["bottom_line"], backward.context()["bottom_line"])
    ]
    assert all(f == b for f, b in lines)


@SETTINGS
@given(random_designs())
def test_accuracy_and_error_rate_give_the_same_decisions_in_mirrored_words(
    drawn: tuple[str, pd.DataFrame],
) -> None:
    kind, frame = drawn
    errors = quiet_report(error_table(frame, kind), ("alpha", "beta"))
    hits = quiet_report(accuracy_table(frame, kind), ("alpha", "beta"))
    assert hits.metric.name == "accuracy" and hits.metric.direction == "higher"
    assert errors.metric.name == "error rate" and errors.metric.direction == "lower"
    assert [o.name for o in errors.outcomes] == [o.name for o in hits.outcomes]
    for e, h in zip(errors.outcomes, hits.outcomes):
        assert e.reject == h.reject and e.result.pvalue == pytest.approx(h.result.pvalue)
        if e.shown_estimate is not None:
            # accuracy(A) − accuracy(B) = −(error(A) − error(B))
            assert h.shown_estimate == pytest.approx(-e.shown_estimate, abs=1e-12)
        said_e, said_h = claims(e.interpretation), claims(h.interpretation)
        if "better" in said_e:
            model_e, word_e, _, by_e = said_e["better"]
            model_h, word_h, _, by_h = said_h["better"]
            # the same model is named the better one, with mirrored comparatives
            assert (model_e, word_e, word_h, by_e) == (model_h, "lower", "higher", by_h)
        assert said_e["probabilities"] == said_h["probabilities"]


@SETTINGS
@given(random_designs())
def test_every_interval_contains_the_estimate_printed_beside_it(
    drawn: tuple[str, pd.DataFrame],
) -> None:
    kind, frame = drawn
    for table in (error_table(frame, kind), accuracy_table(frame, kind)):
        markdown = quiet_report(table, ("beta", "alpha")).to_markdown()
        rows = [line for line in markdown.splitlines() if line.startswith("| ") and "[" in line]
        for row in rows:
            cells = [c.strip() for c in row.strip("|").split("|")]
            low, high = (float(x) for x in _INTERVAL.search(cells[-1]).groups())
            estimate = float(_NUMBER.search(cells[-2]).group(0))
            assert low - 1e-4 <= estimate <= high + 1e-4, row


# -- the direction is never a silent guess -------------------------------------------
@pytest.fixture(scope="module")
def bc() -> pd.DataFrame:
    return predictions_frame("mx2", 120, 7, 0.05, 0.12)


@pytest.mark.parametrize(
    ("formula", "direction", "flag"),
    [
        ("accuracy ~ clf | rep + k", "lower", "direction='higher'"),  # a score as a loss
        ("{y_pred != y_true} ~ clf | rep + k", "higher", "direction='lower'"),  # a loss as a score
    ],
)
def test_a_direction_that_contradicts_a_per_record_column_is_refused(
    bc: pd.DataFrame, formula: str, direction: str, flag: str
) -> None:
    column = formula.split(" ~")[0].strip("{}")
    with pytest.raises(DataError) as caught:
        ResultsTable.from_formula(formula, bc, record="idx", direction=direction)
    assert repr(column) in str(caught.value) and flag in str(caught.value)
    assert "--direction" in str(caught.value)


def test_a_direction_that_contradicts_a_per_fold_column_is_refused() -> None:
    scores = pd.DataFrame(
        {"rep": [1] * 4, "k": [1, 1, 2, 2], "clf": ["a", "b"] * 2, "auc": [0.9, 0.8, 0.85, 0.8]}
    )
    with pytest.raises(DataError, match=r"column 'auc' .* direction='higher'"):
        ResultsTable.from_fold_scores(scores, score="auc", model="clf", replication="rep",
                                      fold="k", direction="lower")  # fmt: skip
    errors = scores.rename(columns={"auc": "error_rate"})
    with pytest.raises(DataError, match=r"column 'error_rate' .* direction='lower'"):
        ResultsTable.from_formula("error_rate ~ clf | rep + k", errors, per_fold=True,
                                  direction="higher")  # fmt: skip
    # the same argument and the same default per fold and per record: the name decides
    assert (
        ResultsTable.from_formula(
            "error_rate ~ clf | rep + k", errors, per_fold=True
        ).metric.direction
        == "lower"
    )


def test_hits_under_a_name_that_says_nothing_ask_for_the_direction(bc: pd.DataFrame) -> None:
    frame = bc.rename(columns={"accuracy": "outcome"})
    with pytest.raises(DataError, match=r"column 'outcome' .* direction='higher'"):
        ResultsTable.from_formula("outcome ~ clf | rep + k", frame, record="idx")
    table = ResultsTable.from_formula(
        "outcome ~ clf | rep + k", frame, record="idx", direction="higher"
    )
    assert table.metric.direction == "higher" and table.is_binary  # McNemar still applies


def test_the_default_direction_is_said_in_the_report(bc: pd.DataFrame) -> None:
    frame = bc.assign(cost=1 - bc["accuracy"]).drop(columns="accuracy")
    frame["cost"] = frame["cost"] * 2.5  # not 0/1, name says nothing: the documented default
    frame = frame.rename(columns={"cost": "value"})
    table = ResultsTable.from_formula("value ~ clf | rep + k", frame, record="idx")
    assert table.metric.direction == "lower"
    text = quiet_report(table, ("alpha", "beta")).to_markdown()
    assert "lower is better (the default: neither its name nor a direction said" in text


def test_predictions_read_as_accuracy_give_the_error_rates_decisions(bc: pd.DataFrame) -> None:
    common = {"truth": "y_true", "prediction": "y_pred", "model": "clf", "replication": "rep",
              "fold": "k", "record": "idx"}  # fmt: skip
    errors = ResultsTable.from_predictions(bc, **common)
    hits = ResultsTable.from_predictions(bc, direction="higher", **common)
    assert (errors.metric.name, hits.metric.name) == ("error rate", "accuracy")
    one = quiet_report(errors, ("alpha", "beta"))
    other = quiet_report(hits, ("alpha", "beta"))
    assert [o.result.pvalue for o in one.outcomes] == [o.result.pvalue for o in other.outcomes]
    means = {r["model"]: r["mean"] for r in other.context()["model_losses"]}
    accuracy = bc.groupby("clf")["accuracy"].mean()
    assert means == pytest.approx(accuracy.to_dict(), abs=0.02)  # fold means of near-equal folds
    assert "1 marks a hit" in hits.summary().as_text()
