"""The scalable HTML report (placeholder, filled in below)."""

from cotaudit.report.html_site.site import write_site

__all__ = ["write_site"]
