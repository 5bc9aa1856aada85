"""Read a results file: the one reader behind the command line and written notebooks.

CSV (also compressed: ``.csv.gz``, ``.csv.bz2``, ``.csv.xz``, ``.csv.zip``,
``.csv.zst``) and Parquet (``.parquet``, ``.pq``) files are read with pandas.
The label columns of a CSV (``labels=``) are read as text, as written. Every
failure is a :class:`~cvreport.errors.DataError` that names the file and
says what to do; a CSV that reads as a single column holding ``;`` or tabs
gets a hint to pass the separator (``--sep ';'``).

Examples
--------
>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "losses.csv.gz"
>>> pd.DataFrame({"model": ["a"], "loss": [0.5]}).to_csv(path, index=False)
>>> read_results(path).to_dict("list")
{'model': ['a'], 'loss': [0.5]}
>>> pd.DataFrame({"clf": ["007", "1e3"], "loss": [0.5, 0.25]}).to_csv(path, index=False)
>>> read_results(path, labels=["clf"]).to_dict("list")
{'clf': ['007', '1e3'], 'loss': [0.5, 0.25]}
>>> data_format("losses.xlsx")
Traceback (most recent call last):
...
cvreport.errors.DataError: cannot read 'losses.xlsx': the data must be a .csv or .parquet file ...
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection
from pathlib import Path

import pandas as pd

from cvreport.errors import DataError

__all__ = [
    "COMPRESSIONS",
    "DEFAULT_LABELS",
    "PLAIN_INTEGER",
    "check_regular_file",
    "data_format",
    "plain_integers_as_numbers",
    "read_results",
]

COMPRESSIONS = (".gz", ".bz2", ".xz", ".zip", ".zst")
"""Compression suffixes pandas reads a CSV through."""

DEFAULT_LABELS = ("model", "dataset")
"""The label columns a CSV file is read with when none are named: the model and data set
columns under the names the tables take by default."""

PLAIN_INTEGER = r"0|-?[1-9][0-9]{0,17}"
"""An integer written plainly (no sign ``+``, no leading zero, no exponent), which reads as
the number that prints as it."""

_FORMATS = {".csv": "csv", ".tsv": "csv", ".txt": "csv", ".parquet": "parquet", ".pq": "parquet"}
_SEPARATORS = {";": "semicolon", "\t": "tab", "|": "'|'"}


def data_format(path: str | os.PathLike[str]) -> str:
    """``"csv"`` or ``"parquet"`` from the file name, or a DataError saying what is read."""
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] in COMPRESSIONS:
        suffixes = suffixes[:-1]
    found = _FORMATS.get(suffixes[-1]) if suffixes else None
    if found is None:
        raise DataError(
            f"cannot read {os.fspath(path)!r}: the data must be a .csv or .parquet file "
            f"(also .tsv, .pq and compressed CSV: {', '.join('.csv' + c for c in COMPRESSIONS)})"
        )
    return found


_NOT_REGULAR = (
    (
        stat.S_ISDIR,
        "a folder",
        "give the files in it, e.g. 'FOLDER/*.parquet' (DATA is a .csv or .parquet file, or a "
        "glob of them)",
    ),
    (
        stat.S_ISFIFO,
        "a named pipe (FIFO)",
        "reading it would wait for a writer for ever; save the data to a file first",
    ),
    (stat.S_ISSOCK, "a socket", "save the data to a file first"),
    (stat.S_ISCHR, "a character device", "save the data to a file first"),
    (stat.S_ISBLK, "a block device", "save the data to a file first"),
)


def check_regular_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` exists; a :class:`DataError` if it exists but is no regular file.

    Checked with :func:`os.stat` before anything opens the path: a FIFO would
    block the reader for ever, a folder or a device is no table.

    Examples
    --------
    >>> import tempfile
    >>> check_regular_file(tempfile.mkdtemp())
    Traceback (most recent call last):
    ...
    cvreport.errors.DataError: ... is a folder, not a file of results; give the files in it, ...
    >>> check_regular_file("no-such-file.csv")
    False
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False
    except OSError as error:
        raise DataError(f"cannot read {os.fspath(path)!r}: {error.strerror or error}") from error
    for test, kind, advice in _NOT_REGULAR:
        if test(mode):
            advice = advice.replace("FOLDER", os.fspath(path).rstrip("/"))
            raise DataError(f"{os.fspath(path)!r} is {kind}, not a file of results; {advice}")
    return True


def read_results(
    path: str | os.PathLike[str],
    *,
    sep: str | None = None,
    labels: Collection[str] | None = None,
) -> pd.DataFrame:
    """Read a CSV or Parquet file of results.

    Parameters
    ----------
    path : path-like
    sep : str, optional
        The CSV field separator; ``","`` by default (``"\\t"`` for ``.tsv``).
    labels : collection of str, optional
        The label columns of a CSV file (models, data sets, clusters), read as the
        text they are written as: a model ``007`` or ``1e3`` keeps its name, as every
        engine that scans the file reads it (:func:`cvreport.data.engines.resolve_source`);
        a column of integers written plainly (``1``, ``2``) stays integers
        (:func:`plain_integers_as_numbers`). By default :data:`DEFAULT_LABELS`. The
        other columns' types are guessed from their values; a Parquet file keeps its
        own types.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    DataError
        The file is missing, of an unknown kind, unreadable, or a CSV that looks
        separated by another character than ``sep`` (the message names it).
    """
    source = Path(path)
    exists = check_regular_file(source)  # a folder is named as one, whatever its name
    kind = data_format(source)
    if not exists:
        raise DataError(f"data file {str(source)!r} not found; pass a CSV or Parquet file")
    if sep is not None and (not isinstance(sep, str) or len(sep) != 1 or sep in ('"', "\n")):
        raise DataError(f"the separator must be one character such as ';', got {sep!r}")
    try:
        if kind == "parquet":
            if sep is not None:
                raise DataError(f"--sep / sep= applies to CSV files, not {str(source)!r}")
            import pyarrow.parquet as pq  # lazily: Parquet is optional

            _refuse_repeated_names(
                pq.read_schema(source).names, f"the Parquet file {str(source)!r}"
            )
            frame = pd.read_parquet(source)
            if frame.shape[0] == 0:
                raise no_rows_error(f"the Parquet file {str(source)!r}")
            return frame
        if sep is None and ".tsv" in [s.lower() for s in source.suffixes]:
            sep = "\t"
        text = DEFAULT_LABELS if labels is None else labels
        frame = pd.read_csv(
            source, sep=sep if sep is not None else ",", dtype=dict.fromkeys(text, str)
        )
        frame = plain_integers_as_numbers(frame, text)
        # pandas renames a repeated name to 'loss.1': read the header as it is written
        header = pd.read_csv(source, sep=sep if sep is not None else ",", header=None, nrows=1)
        _refuse_repeated_names(
            [str(name) for name in header.iloc[0]], f"the CSV file {str(source)!r}"
        )
    except ImportError as error:
        raise DataError(
            f"reading {str(source)!r} needs a Parquet engine: pip install pyarrow ({error})"
        ) from error
    except (ValueError, OSError, pd.errors.ParserError, EOFError) as error:
        if isinstance(error, DataError):
            raise
        reason = " ".join(str(error).split()) or type(error).__name__
        if isinstance(error, UnicodeDecodeError):
            reason += (
                "; the file is not UTF-8 text: save it as UTF-8 (e.g. pd.read_csv(path, "
                "encoding='latin-1').to_csv(new_path, index=False)) and read that"
            )
        elif isinstance(error, pd.errors.EmptyDataError):
            reason += "; the file is empty: give a CSV with a header and a row per record"
        raise DataError(f"cannot read {str(source)!r}: {reason}") from error
    _check_separator(frame, source, sep)
    return frame


def plain_integers_as_numbers(frame: pd.DataFrame, columns: Collection[str]) -> pd.DataFrame:
    """``frame`` with its label ``columns`` read as text back to integers where every value
    is an integer written plainly (:data:`PLAIN_INTEGER`).

    Such labels read as numbers keep their names as written, and print as the
    integers of a DataFrame do; a label such as ``007``, ``+1`` or ``1e3`` keeps its
    column text.

    Examples
    --------
    >>> text = pd.DataFrame({"a": ["1", "-20"], "b": ["1", "007"]}, dtype=str)
    >>> plain_integers_as_numbers(text, ["a", "b"]).dtypes.astype(str).tolist()
    ['int64', 'str']
    """
    for column in columns:
        if column not in frame.columns:
            continue
        values = frame[column]
        if not isinstance(values.dtype, pd.StringDtype) or values.shape[0] == 0:
            continue
        if values.isna().any() or not values.str.fullmatch(PLAIN_INTEGER).all():
            continue
        frame[column] = values.astype("int64")
    return frame


def repeated_names_error(name: str, where: str) -> DataError:
    """The error of a file with two columns of one name, on every route that reads files."""
    return DataError(
        f"{where} has several columns named {name!r}; rename them so that each name is unique"
    )


def no_rows_error(where: str) -> DataError:
    """The error of a Parquet file without rows, on every route that reads files."""
    return DataError(
        f"{where} has no rows; give the file that holds the results (one row per "
        "replication, fold, model and record)"
    )


def _refuse_repeated_names(names: list[str], where: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise repeated_names_error(name, where)
        seen.add(name)


def _check_separator(frame: pd.DataFrame, source: Path, sep: str | None) -> None:
    if frame.shape[1] != 1:
        return
    header = str(frame.columns[0])
    for candidate, name in _SEPARATORS.items():
        if candidate != sep and candidate in header:
            used = "comma" if sep in (None, ",") else repr(sep)
            raise DataError(
                f"{str(source)!r} reads as one column {header[:60]!r} when split at each "
                f"{used}; it looks {name}-separated: pass --sep {candidate!r} on the command "
                f"line (sep={candidate!r} in Python)"
            )
