"""The metric's direction, from its name and as given."""

import pytest

from cvreport.data.metric import Metric, direction_from_name
from cvreport.errors import DataError


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("accuracy", "higher"),
        ("val_accuracy", "higher"),
        ("AUC", "higher"),
        ("testF1", "higher"),
        ("roc_auc", "higher"),
        ("error_rate", "lower"),
        ("logLoss", "lower"),
        ("brier_score_loss", "lower"),
        ("loss", "lower"),
        ("accuracy_loss", None),
        ("y", None),
        ("value", None),
    ],
)
def test_direction_from_name(name: str, expected: str | None) -> None:
    assert direction_from_name(name) == expected


def test_metric_turns_internal_loss_differences_into_the_users_units() -> None:
    assert Metric("auc", "higher").from_loss_difference(-0.25) == 0.25
    assert Metric("error rate", "lower").from_loss_difference(-0.25) == -0.25
    assert Metric("auc", "higher").sign == -1 and Metric("loss", "lower").sign == 1


def test_metric_refuses_an_unknown_direction() -> None:
    with pytest.raises(DataError, match=r"'lower'.*'higher'"):
        Metric("auc", "up")  # type: ignore[arg-type]
