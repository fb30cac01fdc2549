"""``python -m mcastlab.cli``, as the single-file CLI allowed; ``python -m mcastlab`` is the usual way."""

import sys

from . import main

sys.exit(main())
