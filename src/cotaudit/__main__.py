"""``python -m cotaudit``: the same as the ``cotaudit`` command."""

import sys

from cotaudit.cli import main

if __name__ == "__main__":
    sys.exit(main())
