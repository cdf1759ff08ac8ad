"""``python -m cotaudit.codes`` prints the generated docs/codes.md."""

import sys

from cotaudit.codes import render_markdown

sys.stdout.write(render_markdown())
