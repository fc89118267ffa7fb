"""``python -m minitorch COMMAND ...``: the same as the ``minitorch`` console script."""

import sys

from minitorch.cli import main

sys.exit(main())
