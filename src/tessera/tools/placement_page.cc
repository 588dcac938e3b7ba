#include "tessera/tools/placement_page.h"

namespace tessera::cli {

namespace {

std::string HtmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

const char* kStyle = R"CSS(
body { font: 13px Helvetica, Arial, sans-serif; margin: 0; color: #222; }
header { position: sticky; top: 0; background: #fafafa; border-bottom: 1px solid #ccc; padding: 6px 10px; z-index: 2; }
h1 { font-size: 15px; margin: 0 0 4px 0; }
#verdict { font-family: monospace; margin-bottom: 4px; }
#legend span.item { margin-right: 14px; white-space: nowrap; }
#legend .swatch { display: inline-block; width: 12px; height: 12px; border: 1px solid #444; vertical-align: -2px; margin-right: 4px; }
#tools input { width: 260px; }
#tools button { margin-left: 4px; }
#panel { position: fixed; right: 10px; top: 110px; width: 360px; max-height: 70vh; overflow: auto; background: #fff;
         border: 1px solid #999; padding: 8px; font-size: 12px; display: none; z-index: 3; box-shadow: 2px 2px 6px #aaa; }
#panel td { vertical-align: top; padding: 1px 4px; }
#graph { overflow: auto; padding: 10px; }
#overview { padding: 4px 10px; border-bottom: 1px solid #ddd; max-height: 40vh; overflow: auto; }
#overview summary { cursor: pointer; color: #555; }
g.node.onode { cursor: pointer; }
g.node.tnode, g.cluster.part { cursor: pointer; }
g.node.hit polygon, g.node.hit path, g.node.hit ellipse { stroke: #ffbf00 !important; stroke-width: 5px !important; }
.searching g.node:not(.hit), .searching g.edge { opacity: 0.25; }
g.cluster.collapsed > path, g.cluster.collapsed > polygon { stroke-width: 4px; stroke-dasharray: 8 4; }
.hidden { display: none; }
)CSS";

const char* kScript = R"JS(
(function () {
  const D = JSON.parse(document.getElementById('tessera-data').textContent);
  const svg = document.querySelector('#graph svg');
  // Overview boxes jump to their partition, expanding it.
  document.querySelectorAll('#overview g.node.onode').forEach(el => el.addEventListener('click', () => {
    const p = parseInt(el.id.slice(1), 10);
    if (collapsed.has(p)) toggle(p);
    const c = document.getElementById('p' + p);
    if (c) c.scrollIntoView({block: 'start', inline: 'nearest'});
  }));
  const nodeEl = i => document.getElementById('n' + i);
  // Legend: counted from the drawn graph, so it says what the page shows.
  const legend = document.getElementById('legend');
  for (const p of D.providers) {
    const count = document.querySelectorAll('g.node.tnode.ep-' + p.css).length;
    const s = document.createElement('span');
    s.className = 'item provider';
    s.dataset.provider = p.name;
    s.dataset.count = count;
    s.innerHTML = '<span class="swatch" style="background:' + p.color + '"></span>' + p.name + ': ' + count + ' nodes';
    legend.appendChild(s);
  }
  const copyIds = new Set();
  document.querySelectorAll('g.edge.copy').forEach(e => e.classList.forEach(c => { if (/^copy-\d+$/.test(c)) copyIds.add(c); }));
  const fallbacks = document.querySelectorAll('g.node.fallback').length;
  const extra = [['copies', copyIds.size, '<span class="swatch" style="background:#d62728"></span>copy between memory spaces: '],
                 ['fallbacks', fallbacks, '<span class="swatch" style="border:3px solid #d62728;background:#fff"></span>&#9888; fell back (a preferred provider declined): ']];
  for (const [id, count, text] of extra) {
    const s = document.createElement('span');
    s.className = 'item';
    s.id = 'legend-' + id;
    s.dataset.count = count;
    s.innerHTML = text + count;
    legend.appendChild(s);
  }
  if (D.profiled) {
    const s = document.createElement('span');
    s.className = 'item';
    s.textContent = 'shade: node time over ' + D.runs + ' run(s), darker = slower';
    legend.appendChild(s);
  }
  // Hover: op, opset, shapes and element types, placement and reasons.
  const esc = t => String(t).replace(/[&<>"]/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]));
  const panel = document.getElementById('panel');
  function describe(i) {
    const d = D.nodes[i];
    let h = '<b>' + esc(d.name) + '</b><table>';
    h += '<tr><td>op</td><td>' + esc(d.domain) + ':' + esc(d.op) + ' (opset ' + d.opset + ')</td></tr>';
    h += '<tr><td>provider</td><td>' + esc(d.ep) + ', partition #' + d.part + '</td></tr>';
    if (d.us >= 0) h += '<tr><td>time</td><td>' + (d.us / Math.max(1, D.runs) / 1000).toFixed(3) + ' ms per run</td></tr>';
    if (d.flops >= 0) h += '<tr><td>flops</td><td>' + d.flops + '</td></tr>';
    for (const [v, t] of d.in) h += '<tr><td>in</td><td>' + esc(v) + ': ' + esc(t) + '</td></tr>';
    for (const [v, t] of d.out) h += '<tr><td>out</td><td>' + esc(v) + ': ' + esc(t) + '</td></tr>';
    for (const why of d.declined) h += '<tr><td>declined</td><td>' + esc(why) + '</td></tr>';
    return h + '</table>';
  }
  D.nodes.forEach((d, i) => {
    const el = nodeEl(i);
    if (!el) return;
    const title = el.querySelector('title');
    if (title) title.textContent = d.name + ' (' + d.op + ', ' + d.ep + ')' + d.declined.map(w => '\n' + w).join('');
    el.addEventListener('mouseenter', () => { panel.innerHTML = describe(i); panel.style.display = 'block'; });
  });
  // Search by node, op or value name.
  const search = document.getElementById('search'), hits = document.getElementById('hits');
  search.addEventListener('input', () => {
    const q = search.value.trim().toLowerCase();
    let n = 0, first = null;
    D.nodes.forEach((d, i) => {
      const el = nodeEl(i);
      const match = q !== '' && (d.name.toLowerCase().includes(q) || d.op.toLowerCase().includes(q) ||
                    d.in.some(([v]) => v.toLowerCase().includes(q)) || d.out.some(([v]) => v.toLowerCase().includes(q)));
      if (el) el.classList.toggle('hit', match);
      if (match) { ++n; if (first === null) first = i; if (collapsed.has(d.part)) toggle(d.part); }
    });
    svg.classList.toggle('searching', q !== '');
    hits.textContent = q === '' ? '' : n + ' match' + (n === 1 ? '' : 'es');
    if (first !== null && nodeEl(first)) nodeEl(first).scrollIntoView({block: 'center', inline: 'center'});
  });
  // Collapse and expand partitions: the layout stays, members are hidden.
  const members = D.partitions.map(() => []);
  D.nodes.forEach((d, i) => members[d.part].push('n' + i));
  const partOf = {};
  D.nodes.forEach((d, i) => { partOf['n' + i] = d.part; });
  const collapsed = new Set();
  function toggle(p) {
    const hide = !collapsed.has(p);
    if (hide) collapsed.add(p); else collapsed.delete(p);
    for (const id of members[p]) { const el = document.getElementById(id); if (el) el.classList.toggle('hidden', hide); }
    D.edges.forEach(([a, b], k) => {
      const inside = partOf[a] === p && partOf[b] === p;
      const el = document.getElementById('e' + k);
      if (inside && el) el.classList.toggle('hidden', hide);
    });
    const c = document.getElementById('p' + p);
    if (c) c.classList.toggle('collapsed', hide);
  }
  D.partitions.forEach((_, p) => {
    const c = document.getElementById('p' + p);
    if (c) c.addEventListener('click', ev => { if (!ev.target.closest('g.node')) toggle(p); });
  });
  document.getElementById('collapse-all').onclick = () => D.partitions.forEach((_, p) => { if (!collapsed.has(p)) toggle(p); });
  document.getElementById('expand-all').onclick = () => D.partitions.forEach((_, p) => { if (collapsed.has(p)) toggle(p); });
  if (D.nodes.length > D.collapse_above) D.partitions.forEach((_, p) => toggle(p));
  // Zoom by rescaling the drawing dot sized in points.
  const w0 = parseFloat(svg.getAttribute('width')), h0 = parseFloat(svg.getAttribute('height'));
  let zoom = 1;
  function setZoom(z) { zoom = z; svg.setAttribute('width', (w0 * z) + 'pt'); svg.setAttribute('height', (h0 * z) + 'pt'); }
  document.getElementById('zoom-in').onclick = () => setZoom(zoom * 1.25);
  document.getElementById('zoom-out').onclick = () => setZoom(zoom / 1.25);
  // Links into the map: #q=TEXT searches, #node=NAME opens a node's panel.
  const params = new URLSearchParams(location.hash.slice(1));
  if (params.has('q')) { search.value = params.get('q'); search.dispatchEvent(new Event('input')); }
  if (params.has('node')) {
    const i = D.nodes.findIndex(d => d.name === params.get('node'));
    if (i >= 0) { panel.innerHTML = describe(i); panel.style.display = 'block'; }
  }
  document.body.dataset.ready = 'true';
})();
)JS";

}  // namespace

std::string PlacementPage(const std::string& title, const std::string& verdict, const std::string& data_json,
                          const std::string& svg, const std::string& overview, bool overview_open) {
  std::string page;
  page.reserve(svg.size() + data_json.size() + 8192);
  page += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Tessera placement: ";
  page += HtmlEscape(title);
  page += "</title>\n<style>";
  page += kStyle;
  page += "</style>\n</head>\n<body>\n<header>\n<h1>Placement map: ";
  page += HtmlEscape(title);
  page += "</h1>\n<div id=\"verdict\">";
  page += HtmlEscape(verdict);
  page += "</div>\n<div id=\"legend\"></div>\n<div id=\"tools\">"
          "<input id=\"search\" type=\"search\" placeholder=\"search node, op or value name\"> <span id=\"hits\"></span>"
          "<button id=\"collapse-all\" title=\"a click on a partition's box collapses or expands it (dashed: collapsed)\">collapse partitions</button><button id=\"expand-all\">expand partitions</button>"
          "<button id=\"zoom-out\">&minus;</button><button id=\"zoom-in\">+</button></div>\n</header>\n"
          "<div id=\"panel\"></div>\n";
  if (!overview.empty()) {
    page += overview_open ? "<details id=\"overview\" open>" : "<details id=\"overview\">";
    page += "<summary>partitions overview (click one to go to it)</summary>\n";
    page += overview;
    page += "\n</details>\n";
  }
  page += "<div id=\"graph\">\n";
  page += svg;
  page += "\n</div>\n<script type=\"application/json\" id=\"tessera-data\">";
  page += data_json;
  page += "</script>\n<script>";
  page += kScript;
  page += "</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace tessera::cli
