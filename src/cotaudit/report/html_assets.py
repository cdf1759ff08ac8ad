"""The stylesheet and script inlined into every HTML report (no server, no CDN, no fonts).

Kept as Python strings so they ship inside the package like any module. The script is small
and optional: without it every item is shown one after another; with it the overview table
selects one item at a time, findings jump to their line, and a click on a flagged line opens
its evidence.
"""

CSS = """
:root { --err: #b3261e; --err-bg: #fdecea; --warn: #7a5b00; --warn-bg: #fff3cd; --info: #1f5fa8;
  --info-bg: #e8f0fb; --ok: #1b6e3a; --ok-bg: #e3f4e8; --grey: #5f6368; --grey-bg: #eceff1;
  --line: #d0d7de; --text: #1f2328; --muted: #59636e; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--text);
  background: #f6f8fa; }
header { padding: 14px 24px; background: #fff; border-bottom: 1px solid var(--line); }
header h1 { margin: 0 0 4px; font-size: 20px; }
header .meta { color: var(--muted); }
main { display: grid; grid-template-columns: minmax(460px, 48%) minmax(0, 1fr); gap: 16px; padding: 16px 24px;
  align-items: start; }
#overview td:nth-child(2) { overflow-wrap: break-word; min-width: 9em; }
main > .panel { max-height: calc(100vh - 32px); }
#items { position: sticky; top: 16px; }
#overview td, #overview th { padding: 4px 6px; }
#overview .codes code { white-space: nowrap; }
#close-detail { display: none; }
/* Narrow windows: the list takes the page and an item opens over it (a close button, Esc). */
@media (max-width: 900px) {
  main { grid-template-columns: 1fr; padding: 8px; }
  main > .panel { max-height: none; }
  #items { display: none; }
  body.detail-open #items { display: block; position: fixed; inset: 0; z-index: 20; max-height: none;
    border-radius: 0; border: 0; overflow: auto; }
  body.detail-open #close-detail { display: block; position: sticky; top: 0; margin-left: auto; z-index: 21; }
  body.detail-open { overflow: hidden; }
  #overview th:nth-child(1), #overview td:nth-child(1), #overview th:nth-child(8), #overview td:nth-child(8)
    { display: none; }
}
#close-detail { font: inherit; font-size: 20px; line-height: 1; padding: 6px 12px; border: 1px solid var(--line);
  border-radius: 6px; background: #fff; cursor: pointer; }
.panel { background: #fff; border: 1px solid var(--line); border-radius: 6px; overflow: auto; }
.chips { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 8px; }
.chip { border: 1px solid var(--line); background: #fff; border-radius: 12px; padding: 1px 10px;
  cursor: pointer;
  font: inherit; }
.chip.active { border-color: var(--text); font-weight: 600; }
table { border-collapse: collapse; width: 100%; }
th, td { padding: 5px 8px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { position: sticky; top: 0; background: #f6f8fa; font-weight: 600; z-index: 1; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
#overview tbody tr { cursor: pointer; }
#overview tbody tr:hover { background: #f3f6fa; }
#overview tbody tr.selected { background: #dbe9ff; }
.badge { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px; font-weight: 600; }
.v-pass { color: var(--ok); background: var(--ok-bg); }
.v-fail { color: var(--err); background: var(--err-bg); }
.v-abstain { color: var(--warn); background: var(--warn-bg); }
.v-invalid { color: var(--grey); background: var(--grey-bg); }
.codes code { font-size: 12px; margin-right: 4px; }
section.item { padding: 12px 16px 20px; }
section.item h2 { font-size: 17px; margin: 0 0 4px; overflow-wrap: break-word; }
section.item h3 { font-size: 14px; margin: 16px 0 6px; }
.sub { color: var(--muted); margin-bottom: 8px; }
.error-box { border-left: 4px solid var(--grey); background: var(--grey-bg); padding: 6px 10px;
  margin: 8px 0; }
ol.findings { margin: 0; padding-left: 22px; }
ol.findings li { margin: 3px 0; cursor: pointer; }
ol.findings li:hover .msg { text-decoration: underline; }
.sev-error > code, code.sev-error { color: var(--err); }
.sev-warning > code, code.sev-warning { color: var(--warn); }
.sev-info > code, code.sev-info { color: var(--info); }
.trace { font: 12.5px/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  border: 1px solid var(--line);
  border-radius: 4px; overflow-x: auto; background: #fff; }
.line { display: flex; white-space: pre; width: max-content; min-width: 100%; }  /* long lines scroll */
.line .ln { flex: 0 0 3.5em; text-align: right; padding-right: 10px; color: var(--muted); user-select: none;
  border-right: 1px solid var(--line); margin-right: 8px; }
.line.flagged { cursor: pointer; }
.line.sev-error { background: var(--err-bg); }
.line.sev-warning { background: var(--warn-bg); }
.line.sev-info { background: var(--info-bg); }
.line.flash, tr.flash { outline: 2px solid #0969da; }
.marks { padding: 1px 0 5px; }
.mark { display: flex; white-space: pre; width: max-content; min-width: 100%; }
.mark .ln { flex: 0 0 3.5em; border-right: 1px solid var(--line); margin-right: 8px; }
.mark .note { white-space: pre-wrap; font-family: system-ui, sans-serif; }
.mark .caret { color: var(--err); font-weight: 700; }
.mark.sev-warning .caret { color: var(--warn); }
.ev { display: none; margin: 2px 0 4px calc(3.5em + 9px); color: var(--muted);
  font-family: system-ui, sans-serif; }
.marks.open .ev { display: block; }
dl.evidence { display: grid; grid-template-columns: max-content 1fr; gap: 0 10px; margin: 0; }
dl.evidence dt { font-weight: 600; }
dl.evidence dd { margin: 0; font-family: ui-monospace, monospace; white-space: pre-wrap;
  word-break: break-word; }
figure.visual { margin: 8px 0; overflow: auto; border: 1px solid var(--line); border-radius: 4px;
  padding: 4px;
  background: #fff; }
figure.visual svg.dag { max-width: 100%; height: auto; }
figure.visual figcaption { color: var(--muted); font-size: 12px; }
table.steps td.status { font-weight: 600; white-space: nowrap; }
.steps tr.step-ok td.status { color: var(--ok); }
tr.flagged-step { background: var(--err-bg); }
details.raw pre { max-height: 400px; overflow: auto; background: #f6f8fa; padding: 8px; font-size: 12px; }
.muted { color: var(--muted); }
"""

JS = """
(function () {
  var items = Array.prototype.slice.call(document.querySelectorAll('section.item'));
  var rows = Array.prototype.slice.call(document.querySelectorAll('#overview tbody tr'));
  if (!items.length) { return; }
  var pane = document.getElementById('items');
  var close = document.createElement('button');
  close.id = 'close-detail'; close.type = 'button'; close.title = 'back to the list (Esc)';
  close.setAttribute('aria-label', 'close'); close.textContent = '\u00d7';
  close.addEventListener('click', function () { document.body.classList.remove('detail-open'); });
  if (pane) { pane.insertBefore(close, pane.firstChild); }
  document.addEventListener('keydown', function (e) {
    if (e.key === 'Escape') { document.body.classList.remove('detail-open'); }
  });
  function select(id, remember) {
    var found = false;
    items.forEach(function (s) { var on = s.id === id; s.hidden = !on; found = found || on; });
    if (!found) { return; }
    rows.forEach(function (r) { r.classList.toggle('selected', r.dataset.item === id); });
    if (remember && history.replaceState) { history.replaceState(null, '', '#' + id); }
    if (remember) { document.body.classList.add('detail-open'); if (pane) { pane.scrollTop = 0; } }
  }
  rows.forEach(function (r) {
    r.addEventListener('click', function () { select(r.dataset.item, true); });
    r.addEventListener('keydown', function (e) { if (e.key === 'Enter') { select(r.dataset.item, true); } });
  });
  document.querySelectorAll('.chip[data-filter]').forEach(function (chip) {
    chip.addEventListener('click', function () {
      var want = chip.dataset.filter;
      document.querySelectorAll('.chip[data-filter]').forEach(function (c) {
        c.classList.toggle('active', c === chip);
      });
      rows.forEach(function (r) { r.hidden = want !== 'all' && r.dataset.verdict !== want; });
    });
  });
  document.querySelectorAll('ol.findings li[data-target]').forEach(function (li) {
    li.addEventListener('click', function () {
      var target = document.getElementById(li.dataset.target);
      if (!target) { return; }
      target.scrollIntoView({block: 'center'});
      target.classList.add('flash');
      var marks = target.nextElementSibling;
      if (marks && marks.classList.contains('marks')) { marks.classList.add('open'); }
      setTimeout(function () { target.classList.remove('flash'); }, 1200);
    });
  });
  document.querySelectorAll('.line.flagged').forEach(function (line) {
    line.addEventListener('click', function () {
      var marks = line.nextElementSibling;
      if (marks && marks.classList.contains('marks')) { marks.classList.toggle('open'); }
    });
  });
  var start = location.hash.slice(1);
  var asked = !!document.getElementById(start) && start.indexOf('item-') === 0;
  if (!asked) {
    var firstBad = rows.filter(function (r) { return r.dataset.verdict !== 'pass'; })[0] || rows[0];
    start = firstBad.dataset.item;
  }
  select(start, false);
  if (asked) { document.body.classList.add('detail-open'); }  // a link to one item opens it
})();
"""
