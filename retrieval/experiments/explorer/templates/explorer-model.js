  // The page's state and data (explorer_data.py's layout): the runs, the pairs, the tests of a view.
  // explorer_page.py joins explorer-model.js, explorer-exports.js and explorer.js, in that order, in one function.
  const data = JSON.parse(document.getElementById('explorer-data').textContent);
  const view = document.getElementById('topic-view');
  const runs = data.runs;
  const R = runs.length;
  const A = data.agreement_measures.length;
  const judgedAtAll = Object.keys(data.qrels).length > 0;
  const state = {
    baseline: data.baseline, compared: null, hidden: new Set(), sort: null, order: data.main,
    correction: data.correction, showAll: false, unjudgedEntered: false, judgedBelow: null, word: '',
    heatOrder: 'similarity', runsOpen: false
  };
  let sequence = [];
  let position = 0;

  // ------------------------------------------------------------------ helpers
  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === 'text') node.textContent = value; else if (key === 'html') node.innerHTML = value;
      else node.setAttribute(key, value === true ? '' : value);
    }
    for (const child of children || []) if (child) node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    return node;
  }
  const svgNode = (tag, attrs) => {
    const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    return node;
  };
  // Numbers written exactly as Python writes them (explorer_export.py): the page's exports and the
  // command's are held byte for byte equal. toFixed and Python agree on the binary value's digits
  // except at an exact midpoint, where Python rounds half to even.
  function fixed(x, d) {
    if (x === 0) x = 0;  // no "-0.000" from a negative zero
    const doubled = Math.abs(x) * Math.pow(2, d + 1);
    if (Number.isInteger(doubled) && doubled % 2 === 1) {
      const low = Math.floor(Math.abs(x) * Math.pow(10, d));
      const n = low % 2 === 0 ? low : low + 1;
      const text = (n / Math.pow(10, d)).toFixed(d);
      return (x < 0 ? '-' : '') + text;
    }
    return x.toFixed(d);
  }
  const missing = v => v === null || v === undefined || (typeof v === 'number' && isNaN(v));
  const number = (v, d) => missing(v) ? '–' : fixed(v, d === undefined ? 3 : d);
  const signed = v => { const t = (v >= 0 || Object.is(v, 0) ? '+' : '-') + fixed(Math.abs(v), 3); return (t === '+0.000' || t === '-0.000') ? '±0.000' : t; };
  const atFloor = (p, floor) => !missing(p) && !missing(floor) && p <= floor * (1 + 1e-9);
  function pText(p, floor) {
    if (missing(p)) return '–';
    if (atFloor(p, floor)) return '≤ ' + pText(floor, null);
    if (p < 0.001) return p.toExponential(1);
    for (let d = 3; d <= 12; d++) {
      const text = fixed(p, d);
      if ((parseFloat(text) < data.alpha) === (p < data.alpha)) return text;
    }
    return String(p);
  }
  const correctedPText = t => { const text = pText(t.p_corrected, null); return atFloor(t.p, t.floor) && text !== '–' ? '≤ ' + text : text; };
  const csvValue = v => { const t = fixed(v, 6).replace(/0+$/, '').replace(/\.$/, ''); return (t === '' || t === '-0') ? '0' : t; };
  // touche/render.py's escape, format by format: the one escaping of every table.
  const csvText = t => /^[=+\-@\t\r]/.test(t) ? "'" + t : t;
  const csvCell = t => /[",\n\r]/.test(t) ? '"' + t.replace(/"/g, '""') + '"' : t;
  function oneLine(text) {  // as Python's " ".join(text.splitlines()) when the name holds a line break
    if (!/[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/.test(text)) return text;
    const parts = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
    if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
    return parts.join(' ');
  }
  const LATEX = {'\\': '\\textbackslash{}', '&': '\\&', '%': '\\%', '$': '\\$', '#': '\\#', '_': '\\_', '{': '\\{', '}': '\\}',
    '~': '\\textasciitilde{}', '^': '\\textasciicircum{}', '<': '\\textless{}', '>': '\\textgreater{}', '|': '\\textbar{}',
    '†': '$^{\\dagger}$', 'α': '$\\alpha$', 'Δ': '$\\Delta$', 'τ': '$\\tau$', '≤': '$\\leq$', '±': '$\\pm$', '–': '--'};
  const MARKDOWN = {'\\': '\\\\', '|': '\\|', '&': '&amp;', '<': '&lt;', '>': '&gt;'};
  const latexEscape = t => Array.from(oneLine(String(t))).map(c => LATEX[c] || c).join('');
  const markdownEscape = t => Array.from(oneLine(String(t))).map(c => MARKDOWN[c] || c).join('');
  const breakable = name => { const s = el('span'); String(name).split(/(?<=[:.])/).forEach((part, i) => { if (i) s.appendChild(el('wbr')); s.appendChild(document.createTextNode(part)); }); return s; };
  function bytesOf(text) {
    const raw = atob(text);
    const out = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out;
  }

  // ------------------------------------------------------------------ data by pairs
  const index = run => runs.indexOf(run);
  const number1 = run => index(run) + 1;
  function pairIndex(i, j) { if (i > j) { const t = i; i = j; j = t; } return i * (2 * R - i - 1) / 2 + (j - i - 1); }
  function oriented(measure, run, baseline) {  // the pair's stored test (j − i) seen as run − baseline
    const rows = data.pairs[measure];
    if (!rows || run === baseline) return null;
    const i = index(baseline), j = index(run);
    const [delta, p, wins, losses, ties, floor] = rows[pairIndex(i, j)];
    return j > i ? {delta: delta, p: p, wins: wins, losses: losses, ties: ties, floor: floor}
      : {delta: delta === null ? null : -delta, p: p, wins: losses, losses: wins, ties: ties, floor: floor};
  }
  function corrected(ps, method) {  // significance.corrected, formula for formula
    const out = ps.slice();
    const defined = ps.map((p, i) => [p, i]).filter(([p]) => !missing(p));
    if (method === 'none' || !defined.length) return out;
    const m = defined.length;
    const order = defined.map((_, k) => k).sort((a, b) => defined[a][0] - defined[b][0]);
    const ranked = order.map(k => defined[k][0]);
    let adjusted;
    if (method === 'bonferroni') adjusted = ranked.map(p => Math.min(1, p * m));
    else if (method === 'holm') { let top = -Infinity; adjusted = ranked.map((p, i) => { top = Math.max(top, p * (m - i)); return Math.min(1, top); }); }
    else { adjusted = new Array(m); let low = Infinity; for (let i = m - 1; i >= 0; i--) { low = Math.min(low, ranked[i] * m / (i + 1)); adjusted[i] = Math.min(1, low); } }
    order.forEach((k, rank) => { out[defined[k][1]] = adjusted[rank]; });
    return out;
  }
  function testsOf(shown) {  // explorer_export.tests: per measure, each shown run against the baseline
    const out = {};
    for (const measure of Object.keys(data.pairs)) {
      const found = [];
      for (const run of shown) { const t = oriented(measure, run, state.baseline); if (t) found.push([run, t]); }
      const adjusted = corrected(found.map(([, t]) => missing(t.p) ? NaN : t.p), state.correction);
      out[measure] = {};
      found.forEach(([run, t], k) => {
        t.p_corrected = missing(adjusted[k]) ? null : adjusted[k];
        t.significant = missing(adjusted[k]) ? null : adjusted[k] < data.alpha;
        t.topics = t.wins + t.losses + t.ties;
        out[measure][run] = t;
      });
    }
    return out;
  }
  function agreementMean(a, b, measure) {
    if (a === b) return null;
    return data.agreement[pairIndex(index(a), index(b))][data.agreement_measures.indexOf(measure)];
  }
  const decoded = new Map();
  function topicAgreement(topic, a, b, measure) {
    if (a === b || !topic.agreement) return null;
    if (!decoded.has(topic.id)) { const bytes = bytesOf(topic.agreement); decoded.set(topic.id, new Int16Array(bytes.buffer, 0, bytes.length / 2)); }
    const raw = decoded.get(topic.id)[pairIndex(index(a), index(b)) * A + data.agreement_measures.indexOf(measure)];
    return raw === -32768 ? null : raw / 10000;
  }
  const rankBytes = new Map();
  function rankIn(topic, docIndex, run) {
    if (!rankBytes.has(topic.id)) rankBytes.set(topic.id, bytesOf(topic.ranks));
    return rankBytes.get(topic.id)[docIndex * R + index(run)] || null;
  }
  const isAgreement = m => data.agreement_measures.includes(m);
  const hasBest = m => Object.prototype.hasOwnProperty.call(data.pairs, m);
  const predicts = run => !data.stance[run] || data.stance[run].predicts;
  const cellMean = (run, m) => ((data.cells[run] || {})[m] || {}).mean;
  const valueOf = (topic, run, m) => isAgreement(m) ? topicAgreement(topic, run, state.baseline, m)
    : (topic.values[run] ? topic.values[run][m] : null);

  // ------------------------------------------------------------------ the view: runs shown, in order
  const visible = () => runs.filter(r => !state.hidden.has(r) || r === state.baseline);
  function sortValue(run, key) {
    if (key === 'run') return run;
    if (isAgreement(key)) return agreementMean(run, state.baseline, key);
    return cellMean(run, key);
  }
  function shownRuns() {  // what the overview shows, and every export and view with it
    const shown = visible();
    if (!state.sort) return shown;
    const {key, desc} = state.sort;
    return shown.slice().sort((a, b) => {
      const x = sortValue(a, key), y = sortValue(b, key);
      if (x === y) return index(a) - index(b);
      if (missing(x)) return 1;
      if (missing(y)) return -1;
      const c = x < y ? -1 : 1;
      return desc ? -c : c;
    });
  }
  // Re-rendering keeps the focus on the control the reader used (it dropped to the page's body).
  function keepingFocus(render) {
    const active = document.activeElement;
    const key = active && active.dataset ? active.dataset.focus : null;
    render();
    if (key) { const again = document.querySelector('[data-focus="' + CSS.escape(key) + '"]'); if (again) again.focus(); }
  }

