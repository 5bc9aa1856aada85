"""Reading a file of cross-validation losses: the one reader the command line and notebooks share.

Examples
--------
>>> read_data("losses.txt")
Traceback (most recent call last):
...
cvreport.errors.DataError: cannot read 'losses.txt': DATA must be a .csv or .parquet file
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from cvreport.errors import DataError

__all__ = ["READERS", "one_line", "read_data"]

#: The pandas reader of each file suffix.
READERS = {".csv": "read_csv", ".parquet": "read_parquet", ".pq": "read_parquet"}


def one_line(exc: BaseException) -> str:
    """An exception as one line of text (an OS error as ``file: reason``)."""
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        return f"{exc.filename}: {exc.strerror}"
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def read_data(path: str | Path) -> pd.DataFrame:
    """Read a CSV or Parquet file of losses, with a one-line error when it cannot be read.

    Raises
    ------
    DataError
        When the suffix is neither .csv nor .parquet, the file is missing or unreadable,
        or Parquet support (pyarrow) is not installed.
    """
    source = Path(path)
    reader = READERS.get(source.suffix.lower())
    if reader is None:
        raise DataError(f"cannot read {str(source)!r}: DATA must be a .csv or .parquet file")
    if not source.is_file():
        raise DataError(f"data file {str(source)!r} not found")
    try:
        frame: pd.DataFrame = getattr(pd, reader)(source)
    except ImportError as exc:
        raise DataError(
            f"reading {str(source)!r} needs a Parquet engine: pip install pyarrow ({exc})"
        ) from exc
    except (ValueError, OSError, pd.errors.ParserError) as exc:
        raise DataError(f"cannot read {str(source)!r}: {one_line(exc)}") from exc
    return frame
