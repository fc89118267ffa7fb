"""``python -m minitorch.course``: see :mod:`minitorch.course.cli`."""

import sys

from .cli import main

sys.exit(main())
