"""``python -m cvreport.cli``: the ``cvreport`` command."""

import sys

from cvreport.cli.main import main

sys.exit(main())
