"""Many data sets: ranks, the Friedman test, post-hoc tests and the per-data-set wins.

Demšar (2006) for the Friedman and Wilcoxon tests and the critical-difference
diagram; García and Herrera (2008) for Bergmann–Hommel; Benavoli et al. (2017)
for the Bayesian signed-rank test. Statistics only: the report and the diagram
live in :mod:`cvreport.reporting.multi_report` and
:mod:`cvreport.rendering.cd_diagram`.
"""

from __future__ import annotations

from cvreport.multi.analysis import DatasetsAnalysis, compare_datasets
from cvreport.multi.bayesian import (
    BayesianSignedRankResult,
    bayesian_signed_rank,
    bayesian_signed_rank_pairs,
)
from cvreport.multi.friedman import (
    CriticalDifference,
    FriedmanResult,
    critical_difference,
    friedman_test,
)
from cvreport.multi.pairwise import (
    WilcoxonResult,
    bergmann_hommel,
    pairwise_wilcoxon,
    wilcoxon_signed_rank,
)
from cvreport.multi.per_dataset import PerDatasetTests, per_dataset_tests
from cvreport.multi.ranks import average_ranks, rank_scores

__all__ = [
    "BayesianSignedRankResult",
    "CriticalDifference",
    "DatasetsAnalysis",
    "FriedmanResult",
    "PerDatasetTests",
    "WilcoxonResult",
    "average_ranks",
    "bayesian_signed_rank",
    "bayesian_signed_rank_pairs",
    "bergmann_hommel",
    "compare_datasets",
    "critical_difference",
    "friedman_test",
    "pairwise_wilcoxon",
    "per_dataset_tests",
    "rank_scores",
    "wilcoxon_signed_rank",
]
