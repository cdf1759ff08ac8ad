"""The HTML report of a large run: a summary page with plots, a paged item list, and per-item
detail in side files (:mod:`.site`); plots in :mod:`.plots`, page assets in :mod:`.assets`."""

from cotaudit.report.html_site.site import render_index, summary_plots, write_site

__all__ = ["render_index", "summary_plots", "write_site"]
