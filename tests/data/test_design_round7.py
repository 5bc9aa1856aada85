"""Design detection and naming, as a new user meets them.

1. 10×10 cross-validation whose fold ids run 0..99 over the replications, given as
   ``loss ~ model | fold``, is refused with the replications its folds form (it
   was read as 100 repeated hold-out splits), on every engine and on the command
   line; real repeated hold-out and one K-fold run are read as before.
2. Keys repeated because the table holds several data sets name the column that
   would make them unique.
3. A column whose direction nothing told warns at construction, and the report's
   Metric row says the direction was assumed.
4. The command line names its flags, the Python API its keywords.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import cvreport
from cvreport.cli import main
from cvreport.data.design import partition_groups
from cvreport.errors import AssumedDirectionWarning, DataError, DesignError
from cvreport.spelling import command_line, option
from tests._engines import need

N_RECORDS, M, K = 200, 10, 10


def cv_frame(seed: int = 0) -> pd.DataFrame:
    """10×10 CV of two models on 200 records, folds numbered 0..99 over the replications."""
    rng = np.random.default_rng(seed)
    rows = []
    for replication in range(M):
        order = rng.permutation(N_RECORDS)
        for k in range(K):
            for model, p in (("a", 0.2), ("b", 0.3)):
                for record in order[k::K]:
                    rows.append((replication, replication * K + k, model, int(record),
                                 int(rng.random() < p)))  # fmt: skip
    return pd.DataFrame(rows, columns=["replication", "fold", "model", "record", "loss"])


def holdout_frame(splits: list[np.ndarray], seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [
        (split, model, int(record), int(rng.random() < 0.3))
        for split, records in enumerate(splits)
        for model in ("a", "b")
        for record in records
    ]
    return pd.DataFrame(rows, columns=["fold", "model", "record", "loss"])


def sources(frame: pd.DataFrame, tmp_path: Path, engine: str) -> object:
    if engine == "pandas":
        return frame
    if engine == "polars":
        return need("polars").from_pandas(frame)
    if engine == "polars-lazy":
        return need("polars").from_pandas(frame).lazy()
    if engine == "duckdb":
        duckdb = need("duckdb")
        return duckdb.from_df(frame)
    if engine == "parquet":
        need("pyarrow")
        path = tmp_path / "results.parquet"
        frame.to_parquet(path)
        return str(path)
    path = tmp_path / "results.csv"
    frame.to_csv(path, index=False)
    return str(path)


ENGINES = ["pandas", "polars", "polars-lazy", "duckdb", "parquet", "csv"]


# --------------------------------------------------------------------------- 1. partitions


@pytest.mark.parametrize("engine", ENGINES)
def test_folds_numbered_across_replications_are_refused_with_the_replications(tmp_path, engine):
    data = sources(cv_frame(), tmp_path, engine)
    with pytest.raises(DesignError) as caught:
        cvreport.ResultsTable.from_formula("loss ~ model | fold", data)
    message = str(caught.value)
    assert "the 100 groups of column 'fold' form 10 partitions of the 200 records" in message
    assert "10 replications of 10-fold cross-validation, not 100 repeated hold-out" in message
    assert "'fold' 0–9, one of 10–19" in message
    assert "'loss ~ model | replication + fold'" in message
    assert "replication = fold // 10 and fold = fold % 10" in message


def test_the_advice_gives_the_design_and_the_corrected_kfold_t():
    frame = cv_frame()
    fixed = frame.assign(replication=frame["fold"] // 10, fold=frame["fold"] % 10)
    table = cvreport.ResultsTable.from_formula("loss ~ model | replication + fold", fixed)
    assert (table.design.kind, table.design.m, table.design.K) == ("repeated_kfold", 10, 10)
    # Bouckaert & Frank (2004): t = mean / sqrt((1/(mK) + n2/n1) var), df = mK − 1
    means = frame.groupby(["fold", "model"])["loss"].mean().unstack()
    d = (means["a"] - means["b"]).to_numpy()
    t = d.mean() / np.sqrt((1 / d.size + 1 / 9) * d.var(ddof=1))
    p = 2 * stats.t.sf(abs(t), d.size - 1)
    result = cvreport.corrected_repeated_kfold_ttest(table, "a", "b")
    assert result.statistic == pytest.approx(t, rel=1e-12)
    assert result.pvalue == pytest.approx(p, rel=1e-10)


def test_folds_numbered_across_replications_beside_a_replication_column_say_so():
    with pytest.raises(DesignError) as caught:
        cvreport.ResultsTable.from_formula("loss ~ model | replication + fold", cv_frame())
    message = str(caught.value)
    assert message.startswith("the folds are numbered across the replications")
    assert "replication 1 uses folds 10, 11, 12" in message
    assert "label the folds the same way in every replication (1..10)" in message


def test_the_command_line_refuses_them_too(tmp_path, capsys):
    path = tmp_path / "cv.csv"
    cv_frame().to_csv(path, index=False)
    out = tmp_path / "report.md"
    status = main(["report", str(path), "-f", "loss ~ model | fold", "-o", str(out)])
    error = capsys.readouterr().err
    assert status == 1 and not out.exists()
    assert "cvreport: error: the 100 groups of column 'fold' form 10 partitions" in error


def test_data_sets_with_folds_numbered_across_replications_are_refused(tmp_path):
    frame = cv_frame()
    two = pd.concat([frame.assign(task="t1"), frame.assign(task="t2")], ignore_index=True)
    for data in (two, sources(two, tmp_path, "parquet")):
        with pytest.raises(DesignError, match="data set 't1': the 100 groups of column 'fold'"):
            cvreport.DatasetsTable.from_formula("loss ~ model | fold | task", data)


@pytest.mark.parametrize("engine", ["pandas", "polars", "duckdb"])
def test_random_hold_out_splits_stay_repeated_hold_out(tmp_path, engine):
    rng = np.random.default_rng(5)
    splits = [rng.choice(60, 20, replace=False) for _ in range(30)]
    data = sources(holdout_frame(splits), tmp_path, engine)
    design = cvreport.ResultsTable.from_formula("loss ~ model | fold", data).design
    assert (design.kind, design.m, design.K) == ("repeated_holdout", 30, 1)


@pytest.mark.parametrize("engine", ["pandas", "polars", "duckdb"])
def test_splits_whose_sizes_tile_but_that_overlap_stay_repeated_hold_out(tmp_path, engine):
    # every record is in exactly two splits and consecutive sizes add up to the 60
    # records, but splits 0 and 1 share records 15..29: no partition
    r = np.arange(60)
    splits = [r[0:30], r[15:45], r[30:60], np.r_[r[45:60], r[0:15]]]
    data = sources(holdout_frame(splits), tmp_path, engine)
    design = cvreport.ResultsTable.from_formula("loss ~ model | fold", data).design
    assert (design.kind, design.m) == ("repeated_holdout", 4)


@pytest.mark.parametrize("engine", ["pandas", "polars", "duckdb"])
def test_one_k_fold_run_stays_k_fold(tmp_path, engine):
    splits = [np.arange(k, 60, 5) for k in range(5)]
    data = sources(holdout_frame(splits), tmp_path, engine)
    design = cvreport.ResultsTable.from_formula("loss ~ model | fold", data).design
    assert (design.kind, design.K) == ("kfold", 5)


def test_partition_groups_from_the_sizes():
    assert partition_groups([3, 3, 4, 5, 5], 10) == [0, 0, 0, 1, 1]
    assert partition_groups([3, 3, 4, 5, 4], 10) is None  # the last run falls short
    assert partition_groups([10, 5, 5], 10) is None  # a run of one split: hold-out
    assert partition_groups([5, 5], 10) is None  # one partition: K-fold, not refused


# --------------------------------------------------------------------------- 2. repeated keys


def two_data_sets() -> pd.DataFrame:
    frame = cv_frame().assign(fold=lambda d: d["fold"] % 10)
    second = frame.assign(dataset="credit", loss=1 - frame["loss"])
    both = pd.concat([frame.assign(dataset="iris"), second], ignore_index=True)
    return both.assign(row=np.arange(len(both)), seed=7)


@pytest.mark.parametrize("engine", ["pandas", "polars", "duckdb", "parquet"])
def test_repeated_keys_name_the_data_set_column_left_out(tmp_path, engine):
    data = sources(two_data_sets(), tmp_path, engine)
    with pytest.raises(DataError) as caught:
        cvreport.ResultsTable.from_formula("loss ~ model | replication + fold", data)
    message = str(caught.value)
    assert message.startswith("4000 (replication, fold, model, record) key(s) appear")
    assert message.endswith(
        "the column 'dataset' is not in the formula and makes the rows unique: add "
        "'| dataset' (with DatasetsTable.from_formula) or filter one data set"
    )
    # the row number and the constant seed do not group the rows into data sets
    assert "'row'" not in message and "'seed'" not in message


def test_the_data_set_term_the_message_asks_for_reads_the_table():
    table = cvreport.DatasetsTable.from_formula(
        "loss ~ model | replication + fold | dataset", two_data_sets()
    )
    assert table.datasets == ("iris", "credit")


def test_repeated_keys_with_keywords_name_the_column_too():
    with pytest.raises(DataError, match="the column 'dataset' is named for no role and makes"):
        cvreport.ResultsTable(two_data_sets())


def test_no_column_is_named_when_none_makes_the_keys_unique():
    frame = two_data_sets().drop(columns="dataset")
    with pytest.raises(DataError) as caught:
        cvreport.ResultsTable.from_formula("loss ~ model | replication + fold", frame)
    assert "makes the rows unique" not in str(caught.value)


def test_the_command_line_names_its_datasets_command(tmp_path, capsys):
    path = tmp_path / "two.csv"
    two_data_sets().to_csv(path, index=False)
    status = main(["report", str(path), "-f", "loss ~ model | replication + fold",
                   "-o", str(tmp_path / "r.md")])  # fmt: skip
    error = capsys.readouterr().err
    assert status == 1
    assert "add '| dataset' (with cvreport datasets) or filter one data set" in error


# --------------------------------------------------------------------------- 3. direction


def fold_scores() -> pd.DataFrame:
    rng = np.random.default_rng(2)
    return pd.DataFrame({"fold": np.repeat(np.arange(10), 2), "model": ["a", "b"] * 10,
                         "value": rng.uniform(0.7, 0.9, 20)})  # fmt: skip


def test_a_score_under_a_neutral_name_warns_at_construction():
    with pytest.warns(AssumedDirectionWarning) as caught:
        table = cvreport.ResultsTable.from_formula("value ~ model | fold", fold_scores(),
                                                   per_fold=True)  # fmt: skip
    message = str(caught[0].message)
    assert message.startswith("column 'value' is read as a loss (lower is better), an assumption")
    assert "pass direction='higher'" in message and "--direction" not in message
    assert caught[0].filename == __file__  # points at the user's line
    assert table.metric.direction == "lower"


def test_probabilities_under_a_neutral_name_warn():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"model": ["a"] * 8 + ["b"] * 8, "record": list(range(8)) * 2,
                          "proba": rng.uniform(0, 1, 16)})  # fmt: skip
    with pytest.warns(AssumedDirectionWarning, match="column 'proba' is read as a loss"):
        cvreport.ResultsTable.from_formula("proba ~ model", frame)


@pytest.mark.parametrize(
    "formula, options",
    [("value ~ model | fold", {"direction": "higher"}),
     ("value ~ model | fold", {"direction": "lower"}),
     ("accuracy ~ model | fold", {})],
)  # fmt: skip
def test_a_direction_given_or_named_does_not_warn(formula, options):
    frame = fold_scores().rename(columns={"value": formula.split()[0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error", AssumedDirectionWarning)
        cvreport.ResultsTable.from_formula(formula, frame, per_fold=True, **options)


def test_the_report_says_the_direction_was_assumed():
    with pytest.warns(AssumedDirectionWarning):
        table = cvreport.ResultsTable.from_formula("value ~ model | fold", fold_scores(),
                                                   per_fold=True)  # fmt: skip
    text = cvreport.Report(table).to_markdown()
    row = next(line for line in text.splitlines() if line.startswith("| Metric |"))
    assert "lower is better, assumed, not given: neither its name nor a direction" in row
    given = cvreport.ResultsTable.from_formula("value ~ model | fold", fold_scores(),
                                               per_fold=True, direction="lower")  # fmt: skip
    row = next(
        line for line in cvreport.Report(given).to_markdown().splitlines()
        if line.startswith("| Metric |")
    )  # fmt: skip
    assert "assumed" not in row


def test_the_command_line_warns_with_its_flag(tmp_path, capsys):
    path = tmp_path / "scores.csv"
    fold_scores().to_csv(path, index=False)
    out = tmp_path / "r.md"
    with pytest.warns(AssumedDirectionWarning) as caught:  # the command prints it on stderr
        status = main(["report", str(path), "-f", "value ~ model | fold", "--per-fold",
                       "-o", str(out)])  # fmt: skip
    assert status == 0 and out.exists()
    message = str(caught[0].message)
    assert message.startswith("column 'value' is read as a loss")
    assert "pass --direction higher" in message and "direction='higher'" not in message


# --------------------------------------------------------------------------- 4. spellings


def test_a_missing_per_fold_names_the_flag_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "scores.csv"
    fold_scores().to_csv(path, index=False)
    status = main(["report", str(path), "-f", "value ~ model | fold", "-o",
                   str(tmp_path / "r.md")])  # fmt: skip
    error = capsys.readouterr().err
    assert status == 1
    assert "pass --per-fold on the command line" in error and "per_fold=True" not in error
    assert "record=..." not in error
    # the same message in Python names the keyword
    with pytest.raises(DataError, match=r"pass per_fold=True \(--per-fold on the command line\)"):
        cvreport.ResultsTable.from_formula("value ~ model | fold", fold_scores())


def test_a_contradicted_direction_names_the_flag_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "scores.csv"
    fold_scores().rename(columns={"value": "accuracy"}).to_csv(path, index=False)
    status = main(["report", str(path), "-f", "accuracy ~ model | fold", "--per-fold",
                   "--direction", "lower", "-o", str(tmp_path / "r.md")])  # fmt: skip
    error = capsys.readouterr().err
    assert status == 1
    assert "declared a loss with --direction lower; pass --direction higher" in error
    assert "direction='" not in error
    with pytest.raises(DataError, match="declared a loss with direction='lower'; pass direction="):
        cvreport.ResultsTable.from_formula(
            "accuracy ~ model | fold", fold_scores().rename(columns={"value": "accuracy"}),
            per_fold=True, direction="lower",
        )  # fmt: skip


def test_an_unknown_metric_on_the_command_line_offers_no_function(tmp_path, capsys):
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"fold": np.repeat([0, 1], 8), "model": (["a"] * 4 + ["b"] * 4) * 2,
                          "record": [*range(4), *range(4), *range(4, 8), *range(4, 8)],
                          "y": rng.integers(0, 2, 16), "p": rng.uniform(0, 1, 16)})  # fmt: skip
    path = tmp_path / "predictions.csv"
    frame.to_csv(path, index=False)
    status = main(["report", str(path), "-f", "y ~ model | fold", "--metric", "no_such",
                   "--score", "p", "-o", str(tmp_path / "r.md")])  # fmt: skip
    error = capsys.readouterr().err
    assert status == 1 and "unknown metric 'no_such'" in error
    assert "a function" not in error
    with pytest.raises(DataError, match=r"or a function \(y_true, y_pred_or_score\)"):
        cvreport.ResultsTable.from_predictions(frame, truth="y", score="p", metric="no_such",
                                               replication=None)  # fmt: skip


def test_one_message_source_spells_each_option_where_the_user_is():
    assert option("per_fold", True) == "per_fold=True"
    assert option("direction", "higher") == "direction='higher'"
    with command_line():
        assert option("per_fold", True) == "--per-fold"
        assert option("direction", "higher") == "--direction higher"
        assert option("test_train_ratio") == "--test-train-ratio RATIO"
    assert option("per_fold", True) == "per_fold=True"  # the command line's spelling ends


def test_python_messages_after_a_command_line_run_name_keywords_again(tmp_path, capsys):
    path = tmp_path / "scores.csv"
    fold_scores().to_csv(path, index=False)
    main(["report", str(path), "-f", "value ~ model | fold", "-o", str(tmp_path / "r.md")])
    capsys.readouterr()
    with pytest.raises(DataError, match=r"pass per_fold=True"):
        cvreport.ResultsTable.from_formula("value ~ model | fold", fold_scores())


def test_scores_given_as_labels_name_the_score_flag_on_the_command_line(tmp_path, capsys):
    rng = np.random.default_rng(6)
    frame = pd.DataFrame({"fold": np.repeat([0, 1], 8), "model": (["a"] * 4 + ["b"] * 4) * 2,
                          "record": [*range(4), *range(4), *range(4, 8), *range(4, 8)],
                          "y": rng.integers(0, 2, 16), "p": rng.uniform(0, 1, 16)})  # fmt: skip
    path = tmp_path / "predictions.csv"
    frame.to_csv(path, index=False)
    status = main(["report", str(path), "-f", "y ~ model | fold", "--metric", "accuracy",
                   "--prediction", "p", "-o", str(tmp_path / "r.md")])  # fmt: skip
    error = capsys.readouterr().err
    assert status == 1 and "name the probabilities with --score COLUMN" in error
    with pytest.raises(DataError, match=r"name the probabilities with score=\.\.\."):
        cvreport.ResultsTable.from_predictions(frame, truth="y", prediction="p",
                                               metric="accuracy", replication=None)  # fmt: skip


def test_a_metric_formula_with_per_fold_names_the_flag_on_the_command_line(tmp_path, capsys):
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({"fold": np.repeat([0, 1], 8), "model": (["a"] * 4 + ["b"] * 4) * 2,
                          "record": [*range(4), *range(4), *range(4, 8), *range(4, 8)],
                          "y": rng.integers(0, 2, 16), "p": rng.uniform(0, 1, 16)})  # fmt: skip
    path = tmp_path / "predictions.csv"
    frame.to_csv(path, index=False)
    status = main(["report", str(path), "-f", "roc_auc(y, p) ~ model | fold", "--per-fold",
                   "-o", str(tmp_path / "r.md")])  # fmt: skip
    error = capsys.readouterr().err
    assert status == 1 and "so it is not one score per fold; leave out --per-fold" in error
    assert "per_fold" not in error
    with pytest.raises(DataError, match="one score per fold; leave out per_fold=True"):
        cvreport.ResultsTable.from_formula("roc_auc(y, p) ~ model | fold", frame, per_fold=True)
