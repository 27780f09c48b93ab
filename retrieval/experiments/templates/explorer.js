(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('explorer-data').textContent);
  const view = document.getElementById('topic-view');
  const runs = data.runs;
  const judgedAtAll = Object.keys(data.qrels).length > 0;
  const state = {
    baseline: data.baseline, compared: null, hidden: new Set(), sort: null, order: data.main,
    showAll: false, unjudgedEntered: false, judgedBelow: null, word: ''
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
  const fmt = v => (v === null || v === undefined) ? '–' : v.toFixed(3);
  const fmtP = p => (p === null || p === undefined) ? '–' : (p < 0.001 ? '< 0.001' : p.toFixed(3));
  const signed = v => { const t = (v >= 0 ? '+' : '') + v.toFixed(3); return (t === '+0.000' || t === '-0.000') ? '±0.000' : t; };
  const number = run => runs.indexOf(run) + 1;
  const visible = () => runs.filter(r => !state.hidden.has(r) || r === state.baseline);
  const isAgreement = m => data.agreement_measures.includes(m);
  const countLike = m => /Judged@|\.N$/.test(m);
  const predicts = run => !data.stance[run] || data.stance[run].predicts;

  function pairValue(means, measure) {
    return means ? means[data.agreement_measures.indexOf(measure)] : null;
  }
  function agreementOf(topic, a, b, measure) {  // topic null: the mean over topics
    if (a === b) return null;
    const i = Math.min(number(a), number(b)) - 1, j = Math.max(number(a), number(b)) - 1;
    const key = i + '|' + j;
    return pairValue(topic ? topic.agreement[key] : data.agreement[key], measure);
  }
  const valueOf = (topic, run, m) => isAgreement(m) ? agreementOf(topic, run, state.baseline, m)
    : (topic.values[run] ? topic.values[run][m] : null);
  const test = (m, run) => ((data.versus[m] || {})[state.baseline] || {})[run];
  const cellMean = (run, m) => ((data.cells[run] || {})[m] || {}).mean;

  // ------------------------------------------------------------------ overview
  function sortValue(run, key) {
    if (key === 'run') return run;
    if (isAgreement(key)) return agreementOf(null, run, state.baseline, key);
    return cellMean(run, key);
  }
  function orderedRuns() {
    const shown = visible();
    if (!state.sort) return shown;
    const {key, desc} = state.sort;
    return shown.slice().sort((a, b) => {
      const x = sortValue(a, key), y = sortValue(b, key);
      if (x === y) return number(a) - number(b);
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      const c = x < y ? -1 : 1;
      return desc ? -c : c;
    });
  }
  function headerCell(label, key, extra) {
    const sorted = state.sort && state.sort.key === key;
    const button = el('button', {type: 'button', class: 'sort', 'data-key': key,
      text: label + (sorted ? (state.sort.desc ? ' ▼' : ' ▲') : '')});
    button.addEventListener('click', () => {
      state.sort = (state.sort && state.sort.key === key) ? {key, desc: !state.sort.desc} : {key, desc: key !== 'run'};
      renderOverview();
    });
    return el('th', {scope: 'col', class: extra || null, 'aria-sort': sorted ? (state.sort.desc ? 'descending' : 'ascending') : null}, [button]);
  }
  function renderOverview() {
    const table = document.getElementById('overview-table');
    const shown = orderedRuns();
    const best = {};
    for (const m of data.measures) {
      if (countLike(m)) continue;
      const values = shown.map(r => cellMean(r, m)).filter(v => v !== null && v !== undefined);
      if (values.length) best[m] = Math.max(...values);
    }
    const head = el('tr', {}, [headerCell('run', 'run'), ...data.measures.map(m => headerCell(m, m)),
      ...data.agreement_measures.map((m, i) => headerCell(m, m, 'agree' + (i ? '' : ' first')))]);
    const rows = shown.map(run => {
      const cells = data.measures.map(m => {
        if (/stance\.F1_macro$/.test(m) && !predicts(run)) return el('td', {class: 'num none', text: 'predicts no stance'});
        const cell = (data.cells[run] || {})[m];
        if (!cell || cell.mean === null) return el('td', {class: 'num', text: '–'});
        const parts = [el('b', {text: fmt(cell.mean)})];
        if (cell.ci && cell.ci[0] !== null) parts.push(' ', el('span', {class: 'ci', text: '[' + fmt(cell.ci[0]) + ', ' + fmt(cell.ci[1]) + ']'}));
        parts.push(el('br'));
        const t = test(m, run);
        if (run === state.baseline) parts.push(el('span', {class: 'base', text: 'baseline'}));
        else if (t && t.delta !== null) {
          parts.push(el('span', {class: t.delta > 1e-9 ? 'up' : (t.delta < -1e-9 ? 'down' : ''), text: 'Δ ' + signed(t.delta)}));
          if (t.significant) parts.push(el('span', {class: 'sig', title: 'significant after correction', text: '*'}));
          parts.push(' ', el('span', {class: 'n', text: 'p ' + fmtP(t.p_corrected) + ' (' + fmtP(t.p) + '); ' +
            t.wins + '+ ' + t.losses + '− of ' + t.topics}));
        }
        return el('td', {class: 'num' + (best[m] !== undefined && cell.mean === best[m] ? ' best' : '')}, parts);
      });
      const agree = data.agreement_measures.map((m, i) => el('td', {class: 'num agree' + (i ? '' : ' first'), text: fmt(agreementOf(null, run, state.baseline, m))}));
      return el('tr', {'data-run': run}, [el('th', {scope: 'row', class: 'run'}, [el('span', {class: 'name', title: run,
        text: '[' + number(run) + '] ' + run + (run === state.baseline ? ' (baseline)' : '')})]), ...cells, ...agree]);
    });
    table.replaceChildren(table.querySelector('caption'), el('thead', {}, [head]), el('tbody', {}, rows));
  }

  // ------------------------------------------------------------------ charts
  function chartValues(run) {
    const out = [];
    for (const t of data.topics) {
      let v;
      if (data.measures.length) {
        const a = valueOf(t, state.baseline, data.main), b = valueOf(t, run, data.main);
        v = (a === null || a === undefined || b === null || b === undefined) ? null : b - a;
      } else v = agreementOf(t, run, state.baseline, data.main);
      if (v !== null && v !== undefined) out.push([v, t.id]);
    }
    return out.sort((x, y) => x[0] - y[0] || (x[1] < y[1] ? -1 : 1));
  }
  function renderCharts() {
    const holder = document.getElementById('charts');
    const difference = data.measures.length > 0;
    const figures = visible().filter(r => r !== state.baseline).map(run => {
      const values = chartValues(run);
      if (!values.length) return el('p', {class: 'note', text: run + ': no topic with a value on ' + data.main + ' in both runs.'});
      const W = 600, H = 110, P = 3, step = (W - 2 * P) / values.length;
      const scale = difference ? (H / 2 - P) / Math.max(1e-9, ...values.map(v => Math.abs(v[0]))) : H - 2 * P;
      const zero = difference ? H / 2 : H - P;
      const svg = svgNode('svg', {viewBox: '0 0 ' + W + ' ' + H, width: '100%', 'aria-hidden': 'true', focusable: 'false'});
      svg.appendChild(svgNode('line', {x1: 0, x2: W, y1: zero, y2: zero, class: 'axis'}));
      const bars = values.map(([v, id], i) => {
        const h = Math.max(Math.abs(v) * scale, 0.8);
        const rect = svgNode('rect', {x: (P + i * step).toFixed(2), y: (v > 0 ? zero - h : zero).toFixed(2),
          width: Math.max(step * 0.8, 0.5).toFixed(2), height: h.toFixed(2), 'data-topic': id,
          class: difference ? (v > 1e-9 ? 'up' : (v < -1e-9 ? 'down' : 'tie')) : 'agree'});
        rect.addEventListener('click', () => openTopic(id, run));
        return rect;
      });
      bars.forEach(b => svg.appendChild(b));
      const wins = values.filter(v => v[0] > 1e-9).length, losses = values.filter(v => v[0] < -1e-9).length;
      const caption = difference ? run + ' − ' + state.baseline + ' on ' + data.main + ', per topic, sorted (' + wins +
        ' better, ' + losses + ' worse, ' + (values.length - wins - losses) + ' tied)'
        : data.main + ' of ' + run + ' with ' + state.baseline + ', per topic, lowest first';
      const status = el('p', {class: 'chart-focus', 'aria-live': 'polite', text: 'arrow keys: pick a topic; Enter opens it'});
      const area = el('div', {class: 'chart-area', tabindex: '0', role: 'group', 'data-run': run,
        'aria-label': caption + '. Arrow keys pick a topic, Enter opens it.'}, [svg]);
      let current = -1;
      const pick = i => {
        if (current >= 0) bars[current].classList.remove('focus');
        current = Math.max(0, Math.min(values.length - 1, i));
        bars[current].classList.add('focus');
        status.textContent = 'topic ' + values[current][1] + ': ' + (difference ? signed(values[current][0]) : fmt(values[current][0]));
      };
      area.addEventListener('keydown', event => {
        if (event.key === 'ArrowRight' || event.key === 'ArrowDown') pick(current + 1);
        else if (event.key === 'ArrowLeft' || event.key === 'ArrowUp') pick(current - 1);
        else if (event.key === 'Home') pick(0);
        else if (event.key === 'End') pick(values.length - 1);
        else if (event.key === 'Enter' && current >= 0) openTopic(values[current][1], run);
        else return;
        event.preventDefault(); event.stopPropagation();
      });
      return el('figure', {class: 'chart'}, [el('figcaption', {text: caption}), area, status]);
    });
    holder.replaceChildren(...figures);
  }

  // ------------------------------------------------------------------ controls and export
  function select(id, label, options, value, onChange) {
    const node = el('select', {id: id}, options.map(([v, text]) => el('option', {value: v, text: text, selected: v === value ? 'selected' : null})));
    node.addEventListener('change', () => onChange(node.value));
    return el('label', {for: id}, [label + ' ', node]);
  }
  function renderControls() {
    const holder = document.getElementById('controls');
    holder.hidden = false;
    const boxes = runs.map(run => {
      const box = el('input', {type: 'checkbox', id: 'show-' + number(run), checked: !state.hidden.has(run) || run === state.baseline,
        disabled: run === state.baseline});
      box.addEventListener('change', () => { if (box.checked) state.hidden.delete(run); else state.hidden.add(run); refresh(); });
      return el('label', {class: 'run-toggle', for: 'show-' + number(run), title: run}, [box, ' [' + number(run) + '] ' + run]);
    });
    const exportButtons = ['markdown', 'latex', 'csv'].map(kind => {
      const b = el('button', {type: 'button', id: 'export-' + kind, text: {markdown: 'Markdown', latex: 'LaTeX', csv: 'CSV (per topic)'}[kind]});
      b.addEventListener('click', () => showExport(kind));
      return b;
    });
    holder.replaceChildren(
      select('baseline', 'baseline', runs.map(r => [r, '[' + number(r) + '] ' + r]), state.baseline, v => setBaseline(v)),
      el('details', {class: 'runs-shown'}, [el('summary', {text: 'runs shown (' + visible().length + ' of ' + runs.length + ')'}),
        el('div', {class: 'run-boxes'}, boxes)]),
      el('span', {class: 'exports'}, ['export: ', ...exportButtons]));
  }
  function showExport(kind) {
    const text = kind === 'csv' ? data.exports.csv : data.exports[kind][state.baseline];
    const panel = document.getElementById('export');
    const url = URL.createObjectURL(new Blob([text], {type: kind === 'csv' ? 'text/csv' : 'text/plain'}));
    const name = 'explore-' + (kind === 'csv' ? 'per-topic.csv' : (kind === 'latex' ? 'overview.tex' : 'overview.md'));
    const area = el('textarea', {id: 'export-text', readonly: true, rows: '10', 'aria-label': kind + ' export', text: text});
    panel.hidden = false;
    panel.replaceChildren(el('p', {class: 'note', text: kind === 'csv' ? 'Per-topic values of every run (tidy: run, query_id, measure, value).'
      : 'The overview of every run against ' + state.baseline + ', as ' + (kind === 'latex' ? 'LaTeX (booktabs)' : 'Markdown') + '.'}),
      area, el('a', {href: url, download: name, id: 'export-download', text: 'download ' + name}));
    area.focus(); area.select();
  }
  function setBaseline(run) {
    state.baseline = run;
    state.hidden.delete(run);
    if (state.compared === run) state.compared = null;
    refresh();
  }
  function refresh() {
    renderControls(); renderOverview(); renderCharts();
    const current = sequence[position];
    order();
    show(current ? current.id : null, false);
  }

  // ------------------------------------------------------------------ topic order and filters
  function compared() {
    const others = visible().filter(r => r !== state.baseline);
    if (!others.includes(state.compared)) state.compared = others.length ? others[0] : state.baseline;
    return state.compared;
  }
  function top5(topic, run) {
    return new Set((topic.hits[run] || []).slice(0, 5).map(h => h[0]));
  }
  // Judged@5 has one definition, the column's (ir_measures' Judged@5: the five highest-scored
  // documents, trec_eval's order): the filter reads the per-topic values the column averages.
  const judgedMeasure = data.measures.find(m => /(^|:)trec\.Judged@5$/.test(m)) || null;
  function judgedShare(topic, run) {
    const value = judgedMeasure ? (topic.values[run] || {})[judgedMeasure] : null;
    return value === undefined ? null : value;
  }
  function passes(topic) {
    const run = compared();
    if (state.word && !(topic.title + ' ' + topic.id).toLowerCase().includes(state.word.toLowerCase())) return false;
    if (state.unjudgedEntered) {
      const base = top5(topic, state.baseline);
      const entered = [...top5(topic, run)].filter(d => !base.has(d));
      if (!entered.some(d => !Object.values((topic.docs[d] || {}).labels || {}).some(l => l !== null))) return false;
    }
    if (state.judgedBelow !== null) {
      const share = judgedShare(topic, run);
      if (share === null || share >= state.judgedBelow) return false;
    }
    return true;
  }
  function order() {
    const run = compared(), m = state.order;
    const scored = [], unscored = [];
    data.topics.filter(passes).forEach(t => {
      let key;
      if (isAgreement(m)) key = agreementOf(t, run, state.baseline, m);
      else {
        const a = valueOf(t, state.baseline, m), b = valueOf(t, run, m);
        key = (a === null || a === undefined || b === null || b === undefined) ? null : b - a;
      }
      (key === null || key === undefined) ? unscored.push(t) : scored.push([key, t]);
    });
    scored.sort((x, y) => x[0] - y[0]);
    sequence = scored.map(p => p[1]).concat(unscored);
  }

  // ------------------------------------------------------------------ topic view
  function labels(topic, docid, predicted) {
    const info = topic.docs[docid] || {};
    const out = [];
    let grade = null, judgedAny = false;
    for (const [name, kind] of Object.entries(data.qrels)) {
      const label = info.labels ? info.labels[name] : null;
      if (label === null || label === undefined) {
        out.push(el('span', {class: 'lab unjudged', text: name + ': unjudged'}));
        continue;
      }
      judgedAny = true;
      if (kind === 'stance') {
        const says = predicted && predicted !== 'Q0';
        out.push(el('span', {class: 'lab ' + (!says ? 'g-none' : (label === predicted ? 'match' : 'mismatch')),
          text: name + ': judged ' + label + (says ? ', run says ' + predicted : ' (the run predicts no stance)')}));
      } else if (kind === 'image') {
        const on = Object.entries(label).filter(([, v]) => v).map(([k]) => k);
        out.push(el('span', {class: 'lab ' + (on.includes(predicted) ? 'match' : 'mismatch'), text: name + ': ' + (on.length ? on.join(' ') : 'none')}));
      } else {
        const g = Math.max(0, label);
        if (grade === null) grade = g;
        out.push(el('span', {class: 'lab g' + g, text: name + ' ' + label}));
      }
    }
    return {nodes: out, grade: grade, judged: judgedAny};
  }
  function card(topic, run, hit, against) {
    const [docid, rank, score, column2] = hit;
    const info = topic.docs[docid] || {};
    const lab = labels(topic, docid, column2);
    const classes = ['card'];
    if (judgedAtAll && !lab.judged) classes.push('unjudged'); else if (lab.grade !== null) classes.push('g' + lab.grade);
    if (info.absent) classes.push('absent');
    const elsewhere = runs.filter(r => r !== run && !state.hidden.has(r)).map(r => '[' + number(r) + '] ' + (info.ranks && info.ranks[r] !== null && info.ranks[r] !== undefined ? '#' + info.ranks[r] : '–'));
    let moved = null;
    if (rank <= 5 && run !== state.baseline && !top5(topic, state.baseline).has(docid)) moved = el('span', {class: 'moved in', text: 'new in top 5'});
    if (rank <= 5 && run === state.baseline && against !== run && !top5(topic, against).has(docid)) moved = el('span', {class: 'moved out', text: 'not in [' + number(against) + ']\'s top 5'});
    const head = el('div', {class: 'head'}, [el('span', {class: 'rank', text: '#' + rank + ' '}), el('span', {class: 'docid', text: docid}),
      el('span', {class: 'score', text: ' · ' + score}), column2 && column2 !== 'Q0' ? el('span', {class: 'stance', text: column2}) : null, moved]);
    const parts = [head];
    if (data.format === 'IMAGE') parts.push(el('div', {class: 'thumb t-' + docid, role: 'img', 'aria-label': 'image ' + docid}));
    if (lab.nodes.length) parts.push(el('div', {class: 'labels'}, lab.nodes));
    if (elsewhere.length) parts.push(el('div', {class: 'others', text: 'elsewhere: ' + elsewhere.join(' · ')}));
    if (info.absent) parts.push(el('div', {class: 'len', text: 'not in the corpus'}));
    else if (info.words !== undefined) parts.push(el('div', {class: 'len', text: info.words + ' words'}));
    if (info.snippet) {
      const text = el('button', {type: 'button', class: 'snippet', 'aria-expanded': 'false', html: info.snippet,
        title: 'whole snippet'});
      text.addEventListener('click', () => {
        const open = text.classList.toggle('open');
        text.setAttribute('aria-expanded', open ? 'true' : 'false');
      });
      parts.push(text);
    }
    return el('div', {class: classes.join(' '), 'data-docid': docid, 'data-run': run}, parts);
  }
  function moves(topic, run) {
    const base = top5(topic, state.baseline), mine = top5(topic, run);
    const entered = [...mine].filter(d => !base.has(d)), left = [...base].filter(d => !mine.has(d));
    const describe = d => el('span', {class: 'docid', text: d + (judgedAtAll ? ' (' + labels(topic, d, null).nodes.map(n => n.textContent).join(', ') + ')' : '') + ' '});
    return el('div', {class: 'moves'}, [el('b', {text: 'Top 5 of ' + run + ' against ' + state.baseline + ': '}),
      el('span', {class: 'up', text: 'entered ' + entered.length + ': '}), ...entered.map(describe),
      el('span', {class: 'down', text: ' left ' + left.length + ': '}), ...left.map(describe)]);
  }
  function filters() {
    const orderChoices = [...data.measures.map(m => [m, m + ' (compared − baseline, biggest loss first)']),
      ...data.agreement_measures.map(m => [m, m + ' with the baseline (least agreeing first)'])];
    const unjudged = el('input', {type: 'checkbox', id: 'f-unjudged', checked: state.unjudgedEntered, disabled: !judgedAtAll});
    unjudged.addEventListener('change', () => { state.unjudgedEntered = unjudged.checked; order(); render(0, false); });
    const below = el('input', {type: 'number', id: 'f-judged', min: '0', max: '1', step: '0.2', value: state.judgedBelow === null ? '' : state.judgedBelow,
      disabled: !judgedMeasure, placeholder: judgedMeasure ? 'any' : 'no Judged@5', title: judgedMeasure ? judgedMeasure : 'needs graded qrels (trec.Judged@5)'});
    below.addEventListener('change', () => { state.judgedBelow = below.value === '' ? null : parseFloat(below.value); order(); render(0, false); });
    const word = el('input', {type: 'search', id: 'f-word', value: state.word, placeholder: 'word'});
    word.addEventListener('change', () => { state.word = word.value.trim(); order(); render(0, false); });
    const all = el('input', {type: 'checkbox', id: 'f-all', checked: state.showAll});
    all.addEventListener('change', () => { state.showAll = all.checked; render(position, false); });
    const others = visible().filter(r => r !== state.baseline);
    return el('div', {class: 'filters'}, [
      others.length ? select('compared', 'compared', others.map(r => [r, '[' + number(r) + '] ' + r]), compared(), v => { state.compared = v; order(); render(0, false); }) : null,
      select('order', 'order topics by', orderChoices, state.order, v => { state.order = v; order(); render(0, false); }),
      el('label', {for: 'f-unjudged'}, [unjudged, ' an unjudged document entered the top 5']),
      el('label', {for: 'f-judged'}, ['Judged@5 of the compared run below ', below]),
      el('label', {for: 'f-word'}, ['title contains ', word]),
      el('label', {for: 'f-all'}, [all, ' show all runs'])]);
  }
  function topicValues(topic, shown) {
    const stanceRuns = Object.keys(topic.stance || {}).length > 0 && Object.values(data.qrels).includes('stance');
    const columns = [...data.measures.map(m => [m, r => valueOf(topic, r, m)])];
    if (stanceRuns) {
      columns.push(['stance F1 (topic)', r => predicts(r) && topic.stance[r] ? topic.stance[r][0] : null]);
      columns.push(['stance accuracy (topic)', r => predicts(r) && topic.stance[r] ? topic.stance[r][1] : null]);
    }
    data.agreement_measures.forEach(m => columns.push([m + ' with baseline', r => agreementOf(topic, r, state.baseline, m)]));
    const rows = shown.map(r => el('tr', {}, [el('th', {scope: 'row', text: '[' + number(r) + '] ' + r + (r === state.baseline ? ' (baseline)' : '')}),
      ...columns.map(([name, get]) => {
        const v = get(r);
        return el('td', {class: 'num', text: (name.startsWith('stance') && !predicts(r)) ? 'no stance' : fmt(v)});
      })]));
    return el('table', {class: 'topic-values'}, [el('thead', {}, [el('tr', {}, [el('th', {scope: 'col', text: 'run'}),
      ...columns.map(([name]) => el('th', {scope: 'col', text: name}))])]), el('tbody', {}, rows)]);
  }
  function render(index, scroll) {
    const nav = el('nav', {class: 'topic-nav', 'aria-label': 'topics'}, [
      el('button', {id: 'prev', type: 'button', text: '‹ previous'}),
      el('span', {id: 'position', text: sequence.length ? 'topic ' + (index + 1) + ' of ' + sequence.length + ' (' + (data.topics.length - sequence.length) + ' filtered out)' : 'no topic passes the filters'}),
      el('button', {id: 'next', type: 'button', text: 'next ›'}),
      el('span', {class: 'keys', text: 'keys: → / j next, ← / k previous, c next compared run, b next baseline'})]);
    if (!sequence.length) {
      view.replaceChildren(nav, filters());
      return;
    }
    position = (index + sequence.length) % sequence.length;
    const topic = sequence[position];
    const run = compared();
    const shown = state.showAll ? visible() : [...new Set([state.baseline, run])];
    const judged = Object.entries(topic.judged).map(([n, c]) => n + ': ' + c + ' judged').join(', ');
    const head = el('div', {class: 'topic-head'}, [
      el('h2', {id: 'topic-title', text: 'Topic ' + topic.id + (topic.title ? ': ' + topic.title : '')}),
      topic.description ? el('p', {class: 'note', text: topic.description}) : null,
      topic.objects.length ? el('p', {class: 'note', text: 'objects: ' + topic.objects.join(' vs ')}) : null,
      judged ? el('p', {class: 'note', text: judged}) : null]);
    const columns = el('div', {class: 'columns'}, shown.map(r => el('div', {class: 'column' + (r === state.baseline ? ' baseline' : ''), 'data-run': r},
      [el('h3', {text: '[' + number(r) + '] ' + r + (r === state.baseline ? ' (baseline)' : (r === run ? ' (compared)' : ''))}),
        ...(topic.hits[r] || []).map(h => card(topic, r, h, run)),
        (topic.hits[r] || []).length ? null : el('p', {class: 'note', text: 'no results for this topic'})])));
    view.replaceChildren(nav, filters(), head, topicValues(topic, visible()), run !== state.baseline ? moves(topic, run) : null, columns);
    view.dataset.topic = topic.id;
    view.dataset.compared = run;
    document.getElementById('prev').addEventListener('click', () => go(-1));
    document.getElementById('next').addEventListener('click', () => go(1));
    if (scroll) view.scrollIntoView({block: 'start'});
  }
  function show(id, scroll) {
    const index = id === null ? 0 : sequence.findIndex(t => t.id === id);
    render(index < 0 ? 0 : index, scroll);
  }
  function openTopic(id, run) {
    if (run && run !== state.baseline) { state.compared = run; state.hidden.delete(run); }
    order();
    if (!sequence.some(t => t.id === id)) { state.unjudgedEntered = false; state.judgedBelow = null; state.word = ''; order(); }
    history.replaceState(null, '', '#t-' + id);
    show(id, true);
  }
  function go(step) {
    if (!sequence.length) return;
    const next = sequence[(position + step + sequence.length) % sequence.length];
    history.replaceState(null, '', '#t-' + next.id);
    show(next.id, true);
  }

  // ------------------------------------------------------------------ start
  document.getElementById('overview-table').classList.add('interactive');
  renderControls(); renderOverview(); renderCharts();
  order();
  window.addEventListener('hashchange', () => {
    if (location.hash.startsWith('#t-')) openTopic(decodeURIComponent(location.hash.slice(3)), null);
  });
  document.addEventListener('keydown', event => {
    if (event.target.closest && event.target.closest('input, select, textarea, .chart-area')) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const others = visible().filter(r => r !== state.baseline);
    if (event.key === 'ArrowRight' || event.key === 'j') { go(1); event.preventDefault(); }
    else if (event.key === 'ArrowLeft' || event.key === 'k') { go(-1); event.preventDefault(); }
    else if (event.key === 'c' && others.length > 1) {
      state.compared = others[(others.indexOf(compared()) + 1) % others.length]; order(); show(view.dataset.topic, false);
    } else if (event.key === 'b' && runs.length > 1) setBaseline(runs[(runs.indexOf(state.baseline) + 1) % runs.length]);
  });
  const start = location.hash.startsWith('#t-') ? decodeURIComponent(location.hash.slice(3)) : null;
  if (start) openTopic(start, null); else render(0, false);
})();
