"""``python -m cvreport``: the ``cvreport`` command, for an environment without its script."""

import sys

from cvreport.cli import main

if __name__ == "__main__":  # pragma: no cover - run as a program
    sys.exit(main())
