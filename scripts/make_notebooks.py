"""Write the worked notebooks in notebooks/ (clean: no outputs, fixed cell ids).

Run from the repository root: python scripts/make_notebooks.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

from cvreport.jupyter.notebook import _code as code
from cvreport.jupyter.notebook import _markdown as md
from cvreport.jupyter.notebook import _notebook, _write_atomically

ROOT = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()


def quickstart():
    return [
        md(
            "title",
            "# Quick start: is model A really better than model B?\n\n"
            "cvreport starts where your cross-validation ended: a long table with, for "
            "every record of every validation fold, each model's loss. This notebook "
            "walks through the bundled example — logistic regression, a decision tree and "
            "naive Bayes on scikit-learn's breast-cancer data, compared by Dietterich's 5×2 "
            "cross-validation — from the table to a report you can paste into a paper.",
        ),
        code(
            "imports",
            "import cvreport\n\n"
            "df = cvreport.load_example()  # one row per replication, fold, model and record\n"
            "df.head()",
        ),
        md(
            "table-intro",
            "## 1. The results table\n\n"
            "A formula says which column plays which part, as in R's "
            "`friedman.test(y ~ treatment | block)`: the loss on the left, the model after "
            "`~`, the blocks (replication and fold) after `|`. cvreport validates the table "
            "once and recognises the design.",
        ),
        code(
            "table",
            'table = cvreport.ResultsTable.from_formula("loss ~ model | replication + fold", df)\n'
            "print(table.design.describe())\n"
            "table.models",
        ),
        code(
            "fold-errors",
            "# the mean loss of every model on every validation fold: all the tests need\n"
            'table.fold_errors().pivot_table(index=["replication", "fold"], columns="model", '
            'values="loss")',
        ),
        md(
            "test-intro",
            "## 2. One test\n\n"
            "Every test returns a result object: it unpacks as `statistic, pvalue`, knows "
            "its method, design and reference, and displays itself as a table. Alpaydın's "
            "combined 5×2cv F test (Alpaydın 1999) suits random 5×2 partitions.",
        ),
        code(
            "one-test",
            'result = cvreport.combined_ftest_5x2cv(table, "logistic_regression", "decision_tree")\n'
            "result",
        ),
        code(
            "unpack",
            "statistic, pvalue = result\n"
            'print(f"F = {statistic:.4f}, p = {pvalue:.3f}, reject at 5%: {result.reject(0.05)}")\n'
            "result.to_frame()",
        ),
        md(
            "audit-intro",
            "## 3. How good were the partitions?\n\n"
            "With m×2 cross-validation the training sets of two replications should share "
            "about n/4 records; random partitions can stray far from that, which moves the "
            "tests' error rates (Wang, Li and Li 2015). The audit measures it.",
        ),
        code("audit", "audit = cvreport.audit_overlap(table)\naudit"),
        code(
            "audit-bcv",
            "# the same models on block-regularized partitions: every overlap at n/4\n"
            "bcv = cvreport.ResultsTable.from_formula(\n"
            '    "loss ~ model | replication + fold", cvreport.load_example("bcv")\n'
            ")\n"
            'print(f"random: Z_max = {audit.z_max:g}, p = {audit.pvalue:.3f} ({audit.verdict})")\n'
            "cvreport.audit_overlap(bcv)",
        ),
        md(
            "report-intro",
            "## 4. The whole report\n\n"
            '`Report` runs every test that fits the design (`tests="all"`) on every pair of '
            "models, adjusts the p-values for the three comparisons (Holm by default), says "
            "which test the literature recommends and why, and explains each decision in "
            "plain words. "
            "It displays inline and saves as HTML, Markdown or LaTeX (never overwriting "
            "unless asked).",
        ),
        code(
            "report",
            'report = cvreport.Report(table, tests="all")\nreport',
        ),
        code(
            "report-frame",
            "# the same numbers as one tidy table\n"
            'report.to_frame()[["test", "model_a", "model_b", "statistic", "pvalue", "decision"]]',
        ),
        code(
            "save",
            "# the format follows the suffix; overwrite=True lets this cell run again\n"
            'for name in ("report.html", "report.md", "appendix.tex"):\n'
            "    print(report.save(name, overwrite=True))",
        ),
        code(
            "markdown",
            "print(report.to_markdown()[:1200])",
        ),
        md(
            "explore-intro",
            "## 5. Explore\n\n"
            "The explorer recomputes the report as you choose models, tests, α, the "
            "multiplicity correction and the output format, and saves what you see. Its "
            "controls are attributes, so code can drive it too.",
        ),
        code(
            "explore",
            "app = cvreport.explore(table)\napp",
        ),
        code(
            "drive",
            "app.all_pairs.value = False\n"
            'app.model_a.value, app.model_b.value = "naive_bayes", "logistic_regression"\n'
            'app.tests.value = ("paired_ttest_5x2cv", "combined_ftest_5x2cv")\n'
            "app.alpha.value = 0.1\n"
            'app.report.to_frame()[["test", "statistic", "pvalue", "decision"]]',
        ),
        md(
            "latex-option",
            "LaTeX display in the notebook is off by default (as in pandas); turn it on "
            "to let results offer `text/latex` too.",
        ),
        code(
            "options",
            "cvreport.options.display.latex = True\n"
            "print(result._repr_latex_()[:200])\n"
            "cvreport.options.display.latex = False",
        ),
    ]


def designing_partitions():
    return [
        md(
            "title",
            "# Designing the partitions of the next experiment\n\n"
            "Random m×2 partitions make the training sets of different replications "
            "overlap by a random amount around n/4, and a poor draw is not rare (Wang, Li "
            "and Li 2015). Block-regularized partitions fix every overlap at n/4 (Wang, "
            "Wang, Li and Yang 2017), which is what the calibrated 5×2cv F test and the "
            "5×2 BCV McNemar test assume. This notebook draws both kinds on a data set "
            "that ships with scikit-learn, collects the two models' per-record losses, and "
            "audits and tests them.",
        ),
        code(
            "imports",
            "import pandas as pd\n"
            "from sklearn.datasets import load_breast_cancer\n"
            "from sklearn.linear_model import LogisticRegression\n"
            "from sklearn.pipeline import make_pipeline\n"
            "from sklearn.preprocessing import StandardScaler\n"
            "from sklearn.tree import DecisionTreeClassifier\n\n"
            "import cvreport\n"
            "from cvreport.splits import BlockRegularizedCV, RandomMx2CV\n\n"
            "X, y = load_breast_cancer(return_X_y=True, as_frame=True)\n"
            "n = len(X)\n"
            'print(f"{n} records, {X.shape[1]} features, classes {y.value_counts().to_dict()}")',
        ),
        md(
            "splitters-intro",
            "## 1. Two ways to draw 5×2 partitions\n\n"
            "Both are scikit-learn splitters: `split(X, y)` yields (train, test) index "
            "arrays, replication by replication, so they work in `cross_val_score` too. "
            "`stratify=True` keeps the class shares in every fold.",
        ),
        code(
            "splitters",
            "random_cv = RandomMx2CV(m=5, stratify=True, random_state=3)\n"
            "designed_cv = BlockRegularizedCV(m=5, stratify=True, random_state=3)\n"
            "designed_cv.get_n_splits(), designed_cv",
        ),
        code(
            "overlaps",
            "# training-set overlaps |S_i ∩ S_j| between replications, against n/4\n"
            'print(f"n/4 = {n / 4}")\n'
            "pd.DataFrame(\n"
            "    {\n"
            '        "random": [random_cv.max_overlap_deviation(X, y)],\n'
            '        "block-regularized": [designed_cv.max_overlap_deviation(X, y)],\n'
            "    },\n"
            '    index=["max |overlap − n/4|"],\n'
            ")",
        ),
        code(
            "overlap-matrix",
            "pd.DataFrame(designed_cv.overlaps(X, y), index=range(1, 6), columns=range(1, 6))",
        ),
        code(
            "assignment",
            "# store the design beside the losses: which fold validates each record\n"
            "assignment = designed_cv.assignment(X, y)\n"
            "assignment.head()",
        ),
        md(
            "collect-intro",
            "## 2. Collect per-record losses\n\n"
            "`collect` fits every model on every training set of the splitter and keeps "
            "each record's 0/1 loss, prediction and truth in a `ResultsTable`.",
        ),
        code(
            "collect",
            "models = {\n"
            '    "logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),\n'
            '    "tree": DecisionTreeClassifier(max_depth=3, random_state=0),\n'
            "}\n"
            "designed = cvreport.collect(models, X, y, cv=designed_cv)\n"
            "random_ = cvreport.collect(models, X, y, cv=random_cv)\n"
            "print(designed.design.describe())\n"
            'designed.fold_errors().pivot_table(index=["replication", "fold"], '
            'columns="model", values="loss")',
        ),
        md(
            "audit-intro",
            "## 3. Audit both\n\n"
            "The audit recognises the block-regularized design (Z_max at its smallest) and "
            "measures how far the random draw strayed. Its Z_max is the largest |X − E X| "
            "(Wang, Li and Li 2015): each overlap X is measured from its exact expectation "
            "E X = a·b/n, where a and b are the sizes of the two training halves. With n = "
            "569 odd a half holds 284 or 285 records, so E X lies within about ½ of n/4, "
            "and Z_max can differ from the max |overlap − n/4| of section 1 by up to ½.",
        ),
        code("audit-random", "cvreport.audit_overlap(random_)"),
        code(
            "audit-designed",
            "audit = cvreport.audit_overlap(designed)\n"
            'print(audit.design, "Z_max =", audit.z_max)\n'
            "audit",
        ),
        md(
            "tests-intro",
            "## 4. Test on the designed partitions\n\n"
            "On balanced or block-regularized partitions the report recommends the "
            "calibrated 5×2cv F test (Wang, Li and Li 2017) and, for 0/1 losses, the "
            "5×2 BCV McNemar test.",
        ),
        code(
            "tests",
            'cvreport.mcnemar_5x2bcv(designed, "logistic", "tree")',
        ),
        code(
            "report",
            "report = cvreport.Report(designed)\n"
            'report.to_frame()[["test", "statistic", "df", "pvalue", "decision"]]',
        ),
        code("report-show", "report"),
    ]


def calibration_study():
    return [
        md(
            "title",
            "# A small calibration study\n\n"
            "A test is only as good as its type I error and its power. `cvreport.simulate` "
            "runs the tests on thousands of simulated data sets at once, through the same "
            "code as real data. Here: Dietterich's ε loss model (n = 300 records; A errs "
            "on one half of them with probability ε/2 and on the other with 3ε/2, B the "
            "reverse, so both have expected error ε = 0.1 and H0 holds), each test on its "
            "design in Yang et al.'s Table V, and a small power curve. The replication counts are kept small "
            "so that the notebook runs in seconds; raise `REPS` for publishable precision.",
        ),
        code(
            "imports",
            "from cvreport import simulate\n\n"
            "REPS = 2000  # simulated data sets per rate; the Monte Carlo error is about "
            "sqrt(0.05 · 0.95 / REPS)",
        ),
        md(
            "size-intro",
            "## 1. Type I error under H0\n\n"
            "Each row: a test, the design it ran on, its rejection rate at α = 0.05 and the "
            "Monte Carlo standard error.",
        ),
        code(
            "size",
            'size = simulate.calibrate("epsilon", reps=REPS, seed=1, progress=False)\nsize',
        ),
        code(
            "paper",
            "# next to the published rates (Yang et al., Table V, about 1,000 replications each)\n"
            'simulate.compare_with_paper(size)[["test", "design", "rate", "se", "paper", "agrees"]]',
        ),
        md(
            "power-intro",
            "## 2. Power\n\n"
            "`delta` adds to A's error probability on every record (an extension of the "
            "model for power curves); at `delta = 0` the rate is the size again.",
        ),
        code(
            "power",
            "curve = simulate.power_curve(\n"
            '    "epsilon",\n'
            "    [0.0, 0.05, 0.1],\n"
            '    tests=["combined_ftest_5x2cv", "calibrated_ftest_5x2cv", "mcnemar_5x2bcv", "mcnemar"],\n'
            "    reps=REPS // 2,\n"
            "    seed=2,\n"
            "    progress=False,\n"
            ")\n"
            'curve.pivot_table(index="parameter", columns="test", values="rate")',
        ),
        code(
            "calibration-report",
            "simulate.calibration_report(curve)",
        ),
        md(
            "one-draw-intro",
            "## 3. One simulated data set, through the usual pipeline\n\n"
            "A simulated data set is an ordinary long table of losses, so the report runs "
            "on it unchanged.",
        ),
        code(
            "one-draw",
            "import cvreport\n\n"
            'drawn = simulate.draw("epsilon", "5x2 BCV", reps=1, seed=3)["5x2 BCV"]\n'
            "table = cvreport.ResultsTable(drawn.frame(0))\n"
            "cvreport.Report(table)",
        ),
    ]


def many_datasets():
    return [
        md(
            "title",
            "# Many data sets: the results table, the Friedman test and the CD diagram\n\n"
            "A paper compares its method with others on many data sets. Its appendix has a "
            "table of data sets × models (mean ± sd, the best in bold, a mark where a model is "
            "significantly better or worse than the proposed one on that data set, a "
            "win/tie/loss row) and a critical-difference diagram (Demšar 2006). cvreport makes "
            "both from one long table, with each data set's marks from the test its own "
            "cross-validation design calls for.",
        ),
        code(
            "load",
            "import cvreport\n\n"
            "# five classifiers on ten binary tasks built from scikit-learn's data sets\n"
            'df = cvreport.load_example("multi")\n'
            "df.head()",
        ),
        md(
            "formula",
            "## 1. One table, one design per data set\n\n"
            "The data set is the last part of the formula, after a final `|`; the formula "
            "before it is each data set's own (`loss ~ model | replication + fold`). Here "
            "some tasks were run with 5×2 CV and others with 10-fold CV.",
        ),
        code(
            "table",
            "multi = cvreport.DatasetsTable.from_formula(\n"
            '    "loss ~ model | replication + fold | dataset", df)\n'
            "multi.designs()",
        ),
        code("means", "multi.means().round(3)"),
        md(
            "per-dataset",
            "## 2. Per data set: the design's test against the baseline\n\n"
            "Each model is compared with the baseline by the test recommended for that data "
            "set's design, the p-values of a data set adjusted with Holm's procedure.",
        ),
        code(
            "wtl",
            "from cvreport.multi import per_dataset_tests\n\n"
            'tests = per_dataset_tests(multi, baseline="logistic_regression")\n'
            "tests.win_tie_loss()",
        ),
        md(
            "across",
            "## 3. Across data sets\n\n"
            "Average ranks, the Friedman test with Iman and Davenport's F, Nemenyi's critical "
            "difference, Wilcoxon signed-rank tests of pairs and Bayesian signed-rank tests "
            "with a region of practical equivalence of one percentage point.",
        ),
        code(
            "analysis",
            "result = cvreport.compare_datasets(\n"
            '    multi, baseline="logistic_regression", rope=0.01, n_samples=20000, seed=0)\n'
            "print(result.friedman)\n"
            "print(result.nemenyi)\n"
            'result.wilcoxon.drop(columns="result")',
        ),
        md("report-intro", "## 4. The report: table, CD diagram, tests, caveats"),
        code(
            "report",
            "report = cvreport.DatasetsReport(\n"
            '    multi, baseline="logistic_regression", n_samples=20000, seed=0)\n'
            "report",
        ),
        code(
            "latex",
            "# the table for one column of a two-column paper; its first line names the\n"
            "# packages it needs (booktabs, amssymb, graphicx)\n"
            "print(report.table_latex())",
        ),
        code(
            "cd-latex",
            "# the critical-difference diagram as TikZ (\\usepackage{tikz}), and as text\n"
            "print(report.cd_latex())\n"
            "print(report.cd_text())",
        ),
        md(
            "effects-intro",
            "## 5. How large, not only whether\n\n"
            "Effect sizes of each pair over the data sets: Hedges' g and Cliff's δ with "
            "their intervals and the words negligible / small / medium / large.",
        ),
        code("effects", "result.effect_sizes.round(3)"),
        md(
            "hierarchical-intro",
            "## 6. The hierarchical Bayesian test\n\n"
            "All the per-fold results in one model (Corani et al. 2017): the probability "
            "that the baseline is better on a new data set, and each data set's shrunken "
            "estimate. Its sampler is an optional extra: "
            "`pip install 'cvreport[hierarchical]'`.",
        ),
        code(
            "hierarchical",
            "from cvreport.multi.hierarchical import hierarchical_test\n\n"
            'res = hierarchical_test(multi, "logistic_regression", "decision_tree",\n'
            "                        rope=0.01, n_samples=1000, n_warmup=500, seed=0)\n"
            "print(res)\n"
            "res.per_dataset.round(3)",
        ),
    ]


def beyond_the_test():
    return [
        md(
            "title",
            "# Beyond the test: plan the next experiment, show that a model is not worse\n\n"
            "A p-value answers whether A differs from B after the experiment. Two other "
            "questions come before and after it: how many replications and folds the next "
            "experiment needs to detect a difference worth having, and whether a new model is "
            "*not worse* than the old one by more than a margin — which a non-significant "
            "difference does not show.",
        ),
        code(
            "load",
            "import cvreport\n\n"
            "df = cvreport.load_example()  # 5×2 CV of three models on breast-cancer data\n"
            'table = cvreport.ResultsTable.from_formula("loss ~ model | replication + fold", df)\n'
            "print(table.design.describe())",
        ),
        md(
            "plan-intro",
            "## 1. Plan: the power of each test on candidate designs\n\n"
            "The pilot gives the variance of the per-fold differences; Nadeau and Bengio's "
            "model gives the correlation that overlapping training sets add. For a difference "
            "of 0.05 in error rate:",
        ),
        code(
            "plan",
            'plan = cvreport.plan(table, "logistic_regression", "decision_tree", effect=0.05)\n'
            "print(plan.summary())",
        ),
        code(
            "curve",
            "# power against replications, as an inline SVG\n"
            'cvreport.power_curve(table, "logistic_regression", "decision_tree", effect=0.05)',
        ),
        md(
            "margin-intro",
            "## 2. Not worse by more than a margin\n\n"
            "A test against a margin with the corrected variance: is logistic regression's "
            "error rate at most half a point above naive Bayes'? Non-inferiority is one "
            "one-sided test; the equivalence test below is two (Schuirmann 1987).",
        ),
        code(
            "non-inferior",
            "res = cvreport.corrected_repeated_kfold_ttest(\n"
            '    table, "logistic_regression", "naive_bayes",\n'
            '    alternative="non-inferior", margin=0.005)\n'
            "print(res.summary())",
        ),
        code(
            "equivalent",
            "res = cvreport.corrected_repeated_kfold_ttest(\n"
            '    table, "logistic_regression", "naive_bayes",\n'
            '    alternative="equivalent", margin=0.005)\n'
            "res.pvalue, res.conf_int()",
        ),
    ]


NOTEBOOKS = {
    "01_quickstart.ipynb": quickstart,
    "02_designing_partitions.ipynb": designing_partitions,
    "03_calibration_study.ipynb": calibration_study,
    "04_many_datasets.ipynb": many_datasets,
    "05_beyond_the_test.ipynb": beyond_the_test,
}

if __name__ == "__main__":
    folder = ROOT / "notebooks"
    folder.mkdir(exist_ok=True)
    for name, cells in NOTEBOOKS.items():
        if len(sys.argv) > 2 and name not in sys.argv[2:]:
            continue
        notebook = _notebook(cells())
        nbformat.validate(notebook)
        _write_atomically(folder / name, nbformat.writes(notebook) + "\n")
        print("wrote", folder / name)
