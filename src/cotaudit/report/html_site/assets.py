"""Stylesheet and script of the report site's index page (inline, no CDN, no fonts).

The script draws the item list from the JSON in ``#data``: one page of rows at a time, filtered
by verdict, engine and a text filter (name or code), each row a link to the item's detail file.
The list scrolls inside its card; at 800 px the plots stack and the less useful columns go.
"""

CSS = """
:root { --err: #b3261e; --err-bg: #fdecea; --warn: #7a5b00; --warn-bg: #fff3cd; --ok: #1b6e3a;
  --ok-bg: #e3f4e8; --grey: #5f6368; --grey-bg: #eceff1; --line: #d0d7de; --text: #1f2328; --muted: #59636e; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--text);
  background: #f6f8fa; }
header { padding: 14px 24px; background: #fff; border-bottom: 1px solid var(--line); }
header h1 { margin: 0 0 4px; font-size: 20px; overflow-wrap: break-word; }
header .meta { color: var(--muted); }
main { padding: 16px 24px; display: flex; flex-direction: column; gap: 16px; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 16px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 6px; margin: 0; padding: 10px 12px; }
figure.card figcaption { font-weight: 600; margin-bottom: 6px; }
svg.plot { width: 100%; max-width: 640px; height: auto; display: block; }
.tools { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin-bottom: 8px; }
.chips { display: flex; flex-wrap: wrap; gap: 6px; }
.chip { border: 1px solid var(--line); background: #fff; border-radius: 12px; padding: 1px 10px; cursor: pointer;
  font: inherit; }
.chip.active { border-color: var(--text); font-weight: 600; }
select, input[type=search] { font: inherit; padding: 2px 6px; border: 1px solid var(--line); border-radius: 4px; }
input[type=search] { flex: 1 1 12em; min-width: 8em; }
.scroll { max-height: 70vh; overflow: auto; border: 1px solid var(--line); border-radius: 4px; }
table { border-collapse: collapse; width: 100%; }
th, td { padding: 4px 6px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { position: sticky; top: 0; background: #f6f8fa; font-weight: 600; z-index: 1; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.name { overflow-wrap: break-word; min-width: 10em; }
td.name a { color: inherit; text-decoration: none; }
td.name a:hover { text-decoration: underline; }
tbody tr:hover { background: #f3f6fa; }
td.codes { font: 12px ui-monospace, monospace; }
td.first { white-space: nowrap; }
.badge { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px; font-weight: 600; }
.v-pass { color: var(--ok); background: var(--ok-bg); }
.v-fail { color: var(--err); background: var(--err-bg); }
.v-abstain { color: var(--warn); background: var(--warn-bg); }
.v-invalid { color: var(--grey); background: var(--grey-bg); }
#pager { display: flex; flex-wrap: wrap; gap: 4px; align-items: center; margin-top: 8px; }
#pager button { font: inherit; border: 1px solid var(--line); background: #fff; border-radius: 4px; padding: 1px 8px;
  cursor: pointer; }
#pager button[aria-current] { border-color: var(--text); font-weight: 600; }
#pager .count { color: var(--muted); margin-left: 8px; }
@media (max-width: 900px) {
  main, header { padding: 8px; }
  .grid { grid-template-columns: 1fr; }
  #overview th:nth-child(1), #overview td:nth-child(1), #overview th:nth-child(8), #overview td:nth-child(8)
    { display: none; }
}
"""

JS = """
(function () {
  var data = JSON.parse(document.getElementById('data').textContent);
  var rows = data.rows, size = data.pageSize, chunk = data.chunk;
  var body = document.querySelector('#overview tbody'), pager = document.getElementById('pager');
  var state = {verdict: 'all', engine: '', text: '', page: 0}, shown = rows;
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c];
    });
  }
  function name(s) { return esc(s).replace(/([\\/_#-])/g, '$1<wbr>').replace(/\\./g, '<wbr>.'); }
  function href(n) {
    var part = String(Math.floor(n / chunk) + 1);
    while (part.length < 4) { part = '0' + part; }
    return 'detail/part-' + part + '.html#item-' + (n % chunk);
  }
  function filter() {
    var text = state.text.toLowerCase();
    shown = rows.filter(function (r) {
      return (state.verdict === 'all' || r[3] === state.verdict) && (!state.engine || r[2] === state.engine) &&
        (!text || r[1].toLowerCase().indexOf(text) >= 0 || r[6].toLowerCase().indexOf(text) >= 0);
    });
    state.page = 0;
    draw();
  }
  function draw() {
    var pages = Math.max(1, Math.ceil(shown.length / size));
    state.page = Math.min(state.page, pages - 1);
    var html = [];
    shown.slice(state.page * size, (state.page + 1) * size).forEach(function (r) {
      html.push('<tr data-verdict="' + esc(r[3]) + '"><td class="num">' + (r[0] + 1) + '</td>' +
        '<td class="name"><a href="' + href(r[0]) + '">' + name(r[1]) + '</a></td><td>' + esc(r[2]) + '</td>' +
        '<td><span class="badge v-' + esc(r[3]) + '">' + esc(r[3]) + '</span></td>' +
        '<td class="num">' + r[4] + '</td><td class="num">' + r[5] + '</td><td class="codes">' + esc(r[6]) +
        '</td><td class="codes first">' + esc(r[7]) + '</td><td class="num">' + (r[8] === null ? '-' : r[8]) +
        '</td></tr>');
    });
    body.innerHTML = html.join('');
    var nav = [];
    function button(label, page, current) {
      return '<button type="button" data-page="' + page + '"' + (current ? ' aria-current="page"' : '') + '>' +
        label + '</button>';
    }
    if (pages > 1) {
      nav.push(button('\\u2039 prev', Math.max(0, state.page - 1), false));
      var from = Math.max(0, state.page - 4), to = Math.min(pages, from + 9);
      if (from > 0) { nav.push(button('1', 0, false)); if (from > 1) { nav.push('\\u2026'); } }
      for (var p = from; p < to; p++) { nav.push(button(String(p + 1), p, p === state.page)); }
      if (to < pages) { if (to < pages - 1) { nav.push('\\u2026'); } nav.push(button(String(pages), pages - 1, false)); }
      nav.push(button('next \\u203a', Math.min(pages - 1, state.page + 1), false));
    }
    var first = shown.length ? state.page * size + 1 : 0, last = Math.min(shown.length, (state.page + 1) * size);
    nav.push('<span class="count">' + first.toLocaleString() + '\\u2013' + last.toLocaleString() + ' of ' +
      shown.length.toLocaleString() + ' items</span>');
    pager.innerHTML = nav.join(' ');
  }
  pager.addEventListener('click', function (e) {
    var page = e.target.getAttribute && e.target.getAttribute('data-page');
    if (page !== null && page !== undefined) { state.page = Number(page); draw(); }
  });
  document.querySelectorAll('.chip[data-filter]').forEach(function (chip) {
    chip.addEventListener('click', function () {
      document.querySelectorAll('.chip[data-filter]').forEach(function (c) { c.classList.toggle('active', c === chip); });
      state.verdict = chip.dataset.filter; filter();
    });
  });
  document.getElementById('engine').addEventListener('change', function (e) { state.engine = e.target.value; filter(); });
  document.getElementById('search').addEventListener('input', function (e) { state.text = e.target.value; filter(); });
  draw();
})();
"""
