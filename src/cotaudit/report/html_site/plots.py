"""Small inline-SVG charts for the report's summary page: no library, no script, no CDN.

Each function returns one ``<svg>`` element sized by its ``viewBox`` (it scales to its box, so
the page works from 800 px up) with a ``<title>`` per bar for the exact figure on hover.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cotaudit.report.html_parts import esc

VERDICT_COLORS = {"pass": "#2e7d46", "fail": "#c62828", "abstain": "#b58900", "invalid": "#78848f"}
BAR = "#3b6fb6"


def _frame(width: int, height: int, body: list[str], label: str) -> str:
    return (
        f'<svg class="plot" viewBox="0 0 {width} {height}" role="img" aria-label="{esc(label)}" '
        f'xmlns="http://www.w3.org/2000/svg" font-family="system-ui, sans-serif" font-size="12">'
        + "".join(body)
        + "</svg>"
    )


def stacked_bars(rows: Mapping[str, Mapping[str, int]], order: Sequence[str], label: str) -> str:
    """One horizontal bar per row (an engine), split by ``order`` (the verdicts), to scale of the
    largest row, with the counts written in each part wide enough to hold them."""
    names = list(rows)
    width, left, right, row_h = 560, 80, 60, 26
    height = 30 + row_h * max(1, len(names))
    most = max((sum(r.values()) for r in rows.values()), default=0) or 1
    body = []
    for i, name in enumerate(names):
        y = 10 + i * row_h
        x = float(left)
        total = sum(rows[name].values())
        body.append(f'<text x="{left - 6}" y="{y + 15}" text-anchor="end">{esc(name)}</text>')
        for key in order:
            n = rows[name].get(key, 0)
            if not n:
                continue
            w = (width - left - right) * n / most
            color = VERDICT_COLORS.get(key, BAR)
            body.append(
                f'<rect x="{x:.1f}" y="{y}" width="{max(w, 1):.1f}" height="20" fill="{color}">'
                f"<title>{esc(name)}: {n:,} {esc(key)}</title></rect>"
            )
            if w > 9 * len(f"{n:,}"):
                body.append(
                    f'<text x="{x + w / 2:.1f}" y="{y + 14}" fill="#fff" text-anchor="middle">{n:,}</text>'
                )
            x += w
        body.append(f'<text x="{x + 6:.1f}" y="{y + 15}" fill="#59636e">{total:,}</text>')
    legend_y = height - 8
    lx = float(left)
    for key in order:
        body.append(
            f'<rect x="{lx:.0f}" y="{legend_y - 9}" width="10" height="10" fill="{VERDICT_COLORS.get(key, BAR)}"/>'
        )
        body.append(f'<text x="{lx + 14:.0f}" y="{legend_y}">{esc(key)}</text>')
        lx += 24 + 7 * len(key)
    return _frame(width, height + 6, body, label)


def hbars(counts: Sequence[tuple[str, int]], label: str, *, color: str = BAR) -> str:
    """Horizontal bars, one per (name, count), largest first as given."""
    width, left, right, row_h = 560, 120, 60, 20
    height = 10 + row_h * max(1, len(counts))
    most = max((n for _, n in counts), default=0) or 1
    body = []
    for i, (name, n) in enumerate(counts):
        y = 5 + i * row_h
        w = (width - left - right) * n / most
        body.append(
            f'<text x="{left - 6}" y="{y + 12}" text-anchor="end" font-family="ui-monospace, monospace">{esc(name)}</text>'
        )
        body.append(
            f'<rect x="{left}" y="{y}" width="{max(w, 1):.1f}" height="15" fill="{color}">'
            f"<title>{esc(name)}: {n:,}</title></rect>"
        )
        body.append(f'<text x="{left + w + 5:.1f}" y="{y + 12}" fill="#59636e">{n:,}</text>')
    if not counts:
        body.append(f'<text x="{left}" y="20" fill="#59636e">none</text>')
    return _frame(width, height, body, label)


def histogram(bins: Sequence[tuple[str, int]], label: str, axis: str, *, color: str = BAR) -> str:
    """Vertical bars over labelled bins, with the axis name under them."""
    width, height, bottom, top, left = 560, 190, 40, 18, 10
    n = max(1, len(bins))
    slot = (width - 2 * left) / n
    most = max((c for _, c in bins), default=0) or 1
    body = [
        f'<line x1="{left}" y1="{height - bottom}" x2="{width - left}" y2="{height - bottom}" stroke="#d0d7de"/>'
    ]
    every = max(1, -(-n // 14))  # at most ~14 bin labels
    for i, (name, c) in enumerate(bins):
        h = (height - bottom - top) * c / most
        x = left + i * slot
        y = height - bottom - h
        body.append(
            f'<rect x="{x + 1:.1f}" y="{y:.1f}" width="{max(slot - 2, 1):.1f}" height="{h:.1f}" fill="{color}">'
            f"<title>{esc(name)}: {c:,}</title></rect>"
        )
        if c and h > 0 and slot >= 26:
            body.append(
                f'<text x="{x + slot / 2:.1f}" y="{y - 3:.1f}" text-anchor="middle" fill="#59636e" font-size="10">{c:,}</text>'
            )
        if i % every == 0:
            body.append(
                f'<text x="{x + slot / 2:.1f}" y="{height - bottom + 14}" text-anchor="middle" font-size="10">{esc(name)}</text>'
            )
    body.append(
        f'<text x="{width / 2:.0f}" y="{height - 6}" text-anchor="middle" fill="#59636e">{esc(axis)}</text>'
    )
    return _frame(width, height, body, label)
