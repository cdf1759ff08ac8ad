"""The ``.kb`` and ``.cert.json`` file formats and their R-1 reports, with the one place where
certify's native words become stable codes.
"""

from cotaudit.certify.kb.bundle import check_bundle
from cotaudit.certify.kb.check import check_kb
from cotaudit.certify.kb.file import KbDocument, parse_kb

__all__ = ["KbDocument", "check_bundle", "check_kb", "parse_kb"]
