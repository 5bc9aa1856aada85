"""The Bayesian posteriors on the probability simplex: the points are the test's draws."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import cvreport
from cvreport.multi.bayesian import bayesian_signed_rank, posterior_points
from cvreport.rendering.simplex import simplex_plot


@pytest.mark.parametrize("n", [15, 80])  # the two ways the masses are summed
def test_points_are_the_tests_own_draws(n: int) -> None:
    rng = np.random.default_rng(1)
    a = rng.random(n)
    b = a + rng.normal(0.005, 0.02, n)
    rope = 0.01 if n == 15 else 0.004  # both give three non-trivial probabilities
    theta = posterior_points(a, b, "higher", rope=rope, n_points=20_000, seed=3)
    test = bayesian_signed_rank(a, b, "higher", rope=rope, n_samples=20_000, seed=3)
    assert min(test.probabilities) < 0.5 < max(test.probabilities) < 1
    shares = np.bincount(theta.argmax(axis=1), minlength=3) / theta.shape[0]
    assert tuple(shares) == pytest.approx(test.probabilities, abs=1e-12)
    assert np.allclose(theta.sum(axis=1), 1.0) and (theta >= 0).all()


def test_points_sit_where_their_probabilities_put_them() -> None:
    theta = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1 / 3, 1 / 3, 1 / 3]])
    svg = simplex_plot(theta, labels=("a", "b"), probabilities=(0.25, 0.25, 0.5), size=320)
    root = ET.fromstring(svg)
    circles = [
        (float(c.get("cx")), float(c.get("cy")))
        for c in root.iter("{http://www.w3.org/2000/svg}circle")
    ]
    polygon = next(root.iter("{http://www.w3.org/2000/svg}polygon")).get("points")
    corners = [tuple(map(float, p.split(","))) for p in polygon.split()]
    # A better bottom left, equivalent on top, B better bottom right, the even draw at the centre
    for point, corner in zip(circles[:3], corners):
        assert point == pytest.approx(corner, abs=0.1)
    centre = np.mean(corners, axis=0)
    assert circles[3] == pytest.approx(tuple(centre), abs=0.1)
    with pytest.raises(ValueError, match="theta"):
        simplex_plot(np.ones((3, 2)), labels=("a", "b"), probabilities=(0, 0, 1))


def test_the_report_draws_each_pair_on_the_simplex() -> None:
    multi = cvreport.DatasetsTable.from_formula(
        "loss ~ model | replication + fold | dataset", cvreport.load_example("multi")
    )
    report = cvreport.DatasetsReport(multi, baseline="logistic_regression", n_samples=4000)
    html = report.to_html()
    figures = re.findall(r'<svg[^>]*id="cvr-simplex-\d+".*?</svg>', html, flags=re.S)
    assert len(figures) == len(report.analysis.bayesian) == 4
    for svg, test in zip(figures, report.analysis.bayesian):
        ET.fromstring(svg)
        assert f"P = {test.p_a_better:.3f}" in svg and f"P = {test.p_b_better:.3f}" in svg
    assert "the share of points in a region is that outcome's probability" in html
