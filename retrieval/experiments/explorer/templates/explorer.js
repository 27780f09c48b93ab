  // ------------------------------------------------------------------ overview
  function headerCell(label, key, extra) {
    const sorted = state.sort && state.sort.key === key;
    const button = el('button', {type: 'button', class: 'sort', 'data-key': key, 'data-focus': 'sort:' + key},
      [breakable(label), sorted ? (state.sort.desc ? ' ▼' : ' ▲') : null]);
    button.addEventListener('click', () => {
      state.sort = (state.sort && state.sort.key === key) ? {key, desc: !state.sort.desc} : {key, desc: key !== 'run'};
      keepingFocus(refresh);
    });
    return el('th', {scope: 'col', class: extra || null, 'aria-sort': sorted ? (state.sort.desc ? 'descending' : 'ascending') : null}, [button]);
  }
  function renderOverview(shown, tests) {
    const table = document.getElementById('overview-table');
    const best = {};
    for (const m of data.measures) {
      if (!hasBest(m)) continue;
      const values = shown.map(r => cellMean(r, m)).filter(v => !missing(v));
      if (values.length) best[m] = Math.max(...values);
    }
    const head = el('tr', {}, [headerCell('run', 'run'), ...data.measures.map(m => headerCell(m, m)),
      ...data.agreement_measures.map((m, i) => headerCell(m, m, 'agree' + (i ? '' : ' first')))]);
    const rows = shown.map(run => {
      const cells = data.measures.map(m => {
        if (/stance\.F1_macro$/.test(m) && !predicts(run)) return el('td', {class: 'num none', text: 'predicts no stance'});
        const cell = (data.cells[run] || {})[m];
        if (!cell || cell.mean === null) return el('td', {class: 'num', text: '–'});
        const parts = [el('b', {text: number(cell.mean)})];
        if (cell.ci && cell.ci[0] !== null) parts.push(' ', el('span', {class: 'ci', text: '[' + number(cell.ci[0]) + ', ' + number(cell.ci[1]) + ']'}));
        parts.push(el('br'));
        const t = (tests[m] || {})[run];
        if (run === state.baseline) parts.push(el('span', {class: 'base', text: 'baseline'}));
        else if (t && t.delta !== null) {
          parts.push(el('span', {class: t.delta > 1e-9 ? 'up' : (t.delta < -1e-9 ? 'down' : ''), text: 'Δ ' + signed(t.delta)}));
          if (t.significant) parts.push(el('span', {class: 'sig', title: 'significant after correction', text: '*'}));
          parts.push(' ', el('span', {class: 'n', text: 'p ' + correctedPText(t) + ' (' + pText(t.p, t.floor) + '); ' +
            t.wins + '+ ' + t.losses + '− of ' + t.topics}));
        }
        return el('td', {class: 'num' + (best[m] !== undefined && cell.mean === best[m] ? ' best' : '')}, parts);
      });
      const agree = data.agreement_measures.map((m, i) => el('td', {class: 'num agree' + (i ? '' : ' first'), text: number(agreementMean(run, state.baseline, m))}));
      return el('tr', {'data-run': run}, [el('th', {scope: 'row', class: 'run'}, [el('span', {class: 'name',
        text: '[' + number1(run) + '] ' + oneLine(run) + (run === state.baseline ? ' (baseline)' : '')})]), ...cells, ...agree]);
    });
    table.replaceChildren(table.querySelector('caption'), el('thead', {}, [head]), el('tbody', {}, rows));
    document.getElementById('meta-baseline').textContent = oneLine(state.baseline);
    const tested = document.getElementById('note-tested');
    if (tested) tested.textContent = String(shown.length - 1);
    const correction = document.getElementById('note-correction');
    if (correction) correction.textContent = data.correction_names[state.correction];
  }

  // ------------------------------------------------------------------ heat map
  function renderHeat(shown) {
    const holder = document.getElementById('heat-table-holder');
    const controls = document.getElementById('heat-controls');
    if (!holder) return;
    const rbo = 'RBO';
    const order = state.heatOrder === 'similarity' ? data.similarity.map(i => runs[i]).filter(r => shown.includes(r)) : shown;
    const numbers = order.length <= 30;
    const head = el('tr', {}, [el('th', {scope: 'col', text: 'run'}), ...order.map(r => el('th', {scope: 'col', title: r, text: String(number1(r))}))]);
    const rows = order.map(a => el('tr', {}, [el('th', {scope: 'row', title: a, text: '[' + number1(a) + '] ' + oneLine(a)}),
      ...order.map(b => {
        const v = a === b ? 1 : agreementMean(a, b, rbo);
        const cell = el('td', {class: missing(v) ? 'none' : 's' + Math.min(9, Math.max(0, Math.floor(v * 10))),
          title: a + ' · ' + b + ': RBO ' + number(v), text: numbers ? number(v, 2) : null, 'data-first': a, 'data-second': b});
        return cell;
      })]));
    const table = el('table', {class: 'heat-map' + (numbers ? '' : ' small'), id: 'heat-table'},
      [el('caption', {class: 'visually-hidden', text: 'Mean RBO of every two runs'}), el('thead', {}, [head]), el('tbody', {}, rows)]);
    table.addEventListener('click', event => {
      const cell = event.target.closest('td[data-first]');
      if (!cell || cell.dataset.first === cell.dataset.second) return;
      state.baseline = cell.dataset.first; state.compared = cell.dataset.second;
      state.hidden.delete(cell.dataset.first); state.hidden.delete(cell.dataset.second);
      refresh();
      view.scrollIntoView({block: 'start'});
    });
    holder.replaceChildren(table);
    controls.replaceChildren(select('heat-order', 'order', [['similarity', 'runs that agree together (clustered)'],
      ['overview', 'as the overview']], state.heatOrder, v => { state.heatOrder = v; keepingFocus(refresh); }),
      el('span', {class: 'note', text: ' click a cell: its row run becomes the baseline, its column run the compared one'}));
  }

  // ------------------------------------------------------------------ confusion matrices, topic table
  function renderConfusions(shown) {
    const holder = document.getElementById('confusions');
    const tables = shown.filter(r => data.stance[r] && data.stance[r].confusion).map(run => el('table', {class: 'confusion'}, [
      el('caption', {text: oneLine(run)}),
      el('thead', {}, [el('tr', {}, [el('th', {scope: 'col', text: 'judged \\ run'}), ...data.stance_labels.map(l => el('th', {scope: 'col', text: l}))])]),
      el('tbody', {}, data.stance[run].confusion.map((row, i) => el('tr', {}, [el('th', {scope: 'row', text: data.stance_labels[i]}),
        ...row.map(c => el('td', {class: 'num', text: String(c)}))])))]));
    const open = holder.querySelector('details') && holder.querySelector('details').open;
    holder.replaceChildren(tables.length ? el('details', {class: 'confusions', open: open || null}, [
      el('summary', {text: 'Stance: confusion matrix per run (judged × predicted)'}), el('div', {class: 'confusion-grid'}, tables)]) : '');
  }
  function renderTopicsTable(shown) {
    const holder = document.getElementById('topics-table');
    const open = holder.open;
    const value = (t, r) => data.measures.length ? t.values[r][data.main] : topicAgreement(t, r, state.baseline, data.main);
    const table = el('table', {}, [el('thead', {}, [el('tr', {}, [el('th', {scope: 'col', text: 'topic'}), el('th', {scope: 'col', text: 'title'}),
      ...shown.map(r => el('th', {scope: 'col', text: oneLine(r)}))])]),
      el('tbody', {}, data.topics.map(t => el('tr', {id: 'row-' + t.id}, [el('th', {scope: 'row'}, [el('a', {href: '#t-' + t.id, text: t.id})]),
        el('td', {class: 'title', text: t.title}), ...shown.map(r => el('td', {class: 'num', text: number(value(t, r))}))])))]);
    holder.replaceChildren(el('summary', {text: 'All ' + data.topics.length + ' topics, ' + data.main + (data.measures.length ? '' : ' with the baseline') + ' per run'}),
      el('div', {class: 'scroll'}, [table]));
    holder.open = open;
  }

  // ------------------------------------------------------------------ charts
  function chartValues(run) {
    const out = [];
    for (const t of data.topics) {
      let v;
      if (data.measures.length) {
        const a = valueOf(t, state.baseline, data.main), b = valueOf(t, run, data.main);
        v = (missing(a) || missing(b)) ? null : b - a;
      } else v = topicAgreement(t, run, state.baseline, data.main);
      if (!missing(v)) out.push([v, t.id]);
    }
    const natural = id => id.split(/(\d+)/).filter(Boolean).map(p => /^\d+$/.test(p) ? [0, p.replace(/^0+/, '').length, p] : [1, p]);
    return out.sort((x, y) => x[0] - y[0] || (JSON.stringify(natural(x[1])) < JSON.stringify(natural(y[1])) ? -1 : 1));
  }
  function renderCharts(shown) {
    const holder = document.getElementById('charts');
    const difference = data.measures.length > 0;
    const figures = shown.filter(r => r !== state.baseline).map(run => {
      const values = chartValues(run);
      if (!values.length) return el('p', {class: 'note', text: oneLine(run) + ': no topic with a value on ' + data.main + ' in both runs.'});
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
      const caption = difference ? oneLine(run) + ' − ' + oneLine(state.baseline) + ' on ' + data.main + ', per topic, sorted (' + wins +
        ' better, ' + losses + ' worse, ' + (values.length - wins - losses) + ' tied)'
        : data.main + ' of ' + oneLine(run) + ' with ' + oneLine(state.baseline) + ', per topic, lowest first';
      const status = el('p', {class: 'chart-focus', 'aria-live': 'polite', text: 'arrow keys: pick a topic; Enter opens it'});
      const area = el('div', {class: 'chart-area', tabindex: '0', role: 'group', 'data-run': run, 'data-focus': 'chart:' + run,
        'aria-label': caption + '. Arrow keys pick a topic, Enter opens it.'}, [svg]);
      let current = -1;
      const pick = i => {
        if (current >= 0) bars[current].classList.remove('focus');
        current = Math.max(0, Math.min(values.length - 1, i));
        bars[current].classList.add('focus');
        status.textContent = 'topic ' + values[current][1] + ': ' + (difference ? signed(values[current][0]) : number(values[current][0]));
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

  // ------------------------------------------------------------------ controls
  function select(id, label, options, value, onChange) {
    const node = el('select', {id: id, 'data-focus': id}, options.map(([v, text]) => el('option', {value: v, text: text, selected: v === value ? 'selected' : null})));
    node.addEventListener('change', () => onChange(node.value));
    return el('label', {for: id}, [label + ' ', node]);
  }
  function renderControls() {
    const holder = document.getElementById('controls');
    holder.hidden = false;
    const boxes = runs.map(run => {
      const box = el('input', {type: 'checkbox', id: 'show-' + number1(run), 'data-focus': 'show:' + number1(run),
        checked: !state.hidden.has(run) || run === state.baseline, disabled: run === state.baseline});
      box.addEventListener('change', () => { if (box.checked) state.hidden.delete(run); else state.hidden.add(run); keepingFocus(refresh); });
      return el('label', {class: 'run-toggle', for: 'show-' + number1(run), title: run}, [box, ' [' + number1(run) + '] ' + oneLine(run)]);
    });
    const panel = el('details', {class: 'runs-shown', open: state.runsOpen || null}, [
      el('summary', {'data-focus': 'runs-shown', text: 'runs shown (' + visible().length + ' of ' + runs.length + ')'}),
      el('div', {class: 'run-boxes'}, boxes)]);
    panel.addEventListener('toggle', () => { state.runsOpen = panel.open; });
    const exportButtons = ['markdown', 'latex', 'csv'].map(kind => {
      const b = el('button', {type: 'button', id: 'export-' + kind, 'data-focus': 'export:' + kind,
        text: {markdown: 'Markdown', latex: 'LaTeX', csv: 'CSV (per topic)'}[kind]});
      b.addEventListener('click', () => showExport(kind));
      return b;
    });
    const controls = [select('baseline', 'baseline', runs.map(r => [r, '[' + number1(r) + '] ' + oneLine(r)]), state.baseline, v => keepingFocus(() => setBaseline(v)))];
    if (Object.keys(data.pairs).length) controls.push(select('correction', 'correction', Object.entries(data.correction_names).map(([k, v]) => [k, k === 'none' ? 'none' : v]),
      state.correction, v => { state.correction = v; keepingFocus(refresh); }));
    holder.replaceChildren(...controls, panel, el('span', {class: 'exports'}, ['export: ', ...exportButtons]));
  }
  function setBaseline(run) {
    state.baseline = run;
    state.hidden.delete(run);
    if (state.compared === run) state.compared = null;
    refresh();
  }
  function refresh() {
    const shown = shownRuns();
    renderControls(); renderOverview(shown, testsOf(shown)); renderHeat(shown); renderConfusions(shown); renderCharts(shown);
    renderTopicsTable(shown);
    if (!document.getElementById('export').hidden) {  // an open export follows the view
      const area = document.getElementById('export-text');
      const kind = area ? area.getAttribute('aria-label').split(' ')[0] : null;
      if (kind) document.getElementById('export-text').value = EXPORTS[kind](shown);
    }
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
    return new Set((topic.hits[run] || []).slice(0, 5).map(h => topic.docs[h[0]]));
  }
  // Judged@5 has one definition, the column's (ir_measures' Judged@5: the five highest-scored
  // documents, trec_eval's order): the filter reads the per-topic values the column averages.
  const judgedMeasure = data.measures.find(m => /(^|:)trec\.Judged@5$/.test(m)) || null;
  function judgedShare(topic, run) {
    const value = judgedMeasure ? (topic.values[run] || {})[judgedMeasure] : null;
    return value === undefined ? null : value;
  }
  const infoOf = (topic, docid) => topic.info[topic.docs.indexOf(docid)] || {};
  function passes(topic) {
    const run = compared();
    if (state.word && !(topic.title + ' ' + topic.id).toLowerCase().includes(state.word.toLowerCase())) return false;
    if (state.unjudgedEntered) {
      const base = top5(topic, state.baseline);
      const entered = [...top5(topic, run)].filter(d => !base.has(d));
      if (!entered.some(d => !Object.values(infoOf(topic, d).labels || {}).some(l => l !== null))) return false;
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
      if (isAgreement(m)) key = topicAgreement(t, run, state.baseline, m);
      else {
        const a = valueOf(t, state.baseline, m), b = valueOf(t, run, m);
        key = (missing(a) || missing(b)) ? null : b - a;
      }
      missing(key) ? unscored.push(t) : scored.push([key, t]);
    });
    scored.sort((x, y) => x[0] - y[0]);
    sequence = scored.map(p => p[1]).concat(unscored);
  }

  // ------------------------------------------------------------------ topic view
  function labels(topic, docid, predicted) {
    const info = infoOf(topic, docid);
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
    const [d, rank, score, column2] = hit;
    const docid = topic.docs[d];
    const info = topic.info[d] || {};
    const lab = labels(topic, docid, column2);
    const classes = ['card'];
    if (judgedAtAll && !lab.judged) classes.push('unjudged'); else if (lab.grade !== null) classes.push('g' + lab.grade);
    if (info.absent) classes.push('absent');
    const shownElsewhere = state.showAll ? visible() : [state.baseline, against];
    const elsewhere = [...new Set(shownElsewhere)].filter(r => r !== run).map(r => { const k = rankIn(topic, d, r); return '[' + number1(r) + '] ' + (k ? '#' + k : '–'); });
    let moved = null;
    if (rank <= 5 && run !== state.baseline && !top5(topic, state.baseline).has(docid)) moved = el('span', {class: 'moved in', text: 'new in top 5'});
    if (rank <= 5 && run === state.baseline && against !== run && !top5(topic, against).has(docid)) moved = el('span', {class: 'moved out', text: 'not in [' + number1(against) + ']\'s top 5'});
    const head = el('div', {class: 'head'}, [el('span', {class: 'rank', text: '#' + rank + ' '}), el('span', {class: 'docid', text: docid}),
      el('span', {class: 'score', text: ' · ' + score}), column2 && column2 !== 'Q0' ? el('span', {class: 'stance', text: column2}) : null, moved]);
    const parts = [head];
    if (data.format === 'IMAGE') parts.push(el('div', {class: 'thumb t-' + docid, role: 'img', 'aria-label': 'image ' + docid}));
    if (lab.nodes.length) parts.push(el('div', {class: 'labels'}, lab.nodes));
    if (elsewhere.length) parts.push(el('div', {class: 'others', text: 'elsewhere: ' + elsewhere.join(' · ') + ' (ranks within ' + 255 + ')'}));
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
    const predicted = (who, docid) => { const hit = (topic.hits[who] || []).find(h => topic.docs[h[0]] === docid); return hit ? hit[3] : null; };
    // each document's labels with the stance of the run that shows it (entered: the compared run's; left: the baseline's)
    const describe = (d, who) => el('span', {class: 'docid', text: d + (judgedAtAll ? ' (' + labels(topic, d, predicted(who, d)).nodes.map(n => n.textContent).join(', ') + ')' : '') + ' '});
    return el('div', {class: 'moves'}, [el('b', {text: 'Top 5 of ' + oneLine(run) + ' against ' + oneLine(state.baseline) + ': '}),
      el('span', {class: 'up', text: 'entered ' + entered.length + ': '}), ...entered.map(d => describe(d, run)),
      el('span', {class: 'down', text: ' left ' + left.length + ': '}), ...left.map(d => describe(d, state.baseline))]);
  }
  function filters() {
    const orderChoices = [...data.measures.map(m => [m, m + ' (compared − baseline, biggest loss first)']),
      ...data.agreement_measures.map(m => [m, m + ' with the baseline (least agreeing first)'])];
    const unjudged = el('input', {type: 'checkbox', id: 'f-unjudged', 'data-focus': 'f-unjudged', checked: state.unjudgedEntered, disabled: !judgedAtAll});
    unjudged.addEventListener('change', () => { state.unjudgedEntered = unjudged.checked; order(); keepingFocus(() => render(0, false)); });
    const below = el('input', {type: 'number', id: 'f-judged', 'data-focus': 'f-judged', min: '0', max: '1', step: '0.2', value: state.judgedBelow === null ? '' : state.judgedBelow,
      disabled: !judgedMeasure, placeholder: judgedMeasure ? 'any' : 'no Judged@5', title: judgedMeasure ? judgedMeasure : 'needs graded qrels (trec.Judged@5)'});
    below.addEventListener('change', () => { state.judgedBelow = below.value === '' ? null : parseFloat(below.value); order(); keepingFocus(() => render(0, false)); });
    const word = el('input', {type: 'search', id: 'f-word', 'data-focus': 'f-word', value: state.word, placeholder: 'word'});
    word.addEventListener('change', () => { state.word = word.value.trim(); order(); keepingFocus(() => render(0, false)); });
    const all = el('input', {type: 'checkbox', id: 'f-all', 'data-focus': 'f-all', checked: state.showAll});
    all.addEventListener('change', () => { state.showAll = all.checked; keepingFocus(() => render(position, false)); });
    const others = visible().filter(r => r !== state.baseline);
    return el('div', {class: 'filters'}, [
      others.length ? select('compared', 'compared', others.map(r => [r, '[' + number1(r) + '] ' + oneLine(r)]), compared(),
        v => { const current = view.dataset.topic; state.compared = v; order(); keepingFocus(() => show(current, false)); }) : null,
      select('order', 'order topics by', orderChoices, state.order, v => { state.order = v; order(); keepingFocus(() => render(0, false)); }),
      el('label', {for: 'f-unjudged'}, [unjudged, ' an unjudged document entered the top 5']),
      el('label', {for: 'f-judged'}, ['Judged@5 of the compared run below ', below]),
      el('label', {for: 'f-word'}, ['title contains ', word]),
      el('label', {for: 'f-all'}, [all, ' show all runs'])]);
  }
  function topicValues(topic, shown, run) {
    const stanceRuns = Object.keys(topic.stance || {}).length > 0 && Object.values(data.qrels).includes('stance');
    const columns = [...data.measures.map(m => [m, r => valueOf(topic, r, m)])];
    if (stanceRuns) {
      columns.push(['stance F1 (topic)', r => predicts(r) && topic.stance[r] ? topic.stance[r][0] : null]);
      columns.push(['stance accuracy (topic)', r => predicts(r) && topic.stance[r] ? topic.stance[r][1] : null]);
    }
    data.agreement_measures.forEach(m => columns.push([m + ' with baseline', r => topicAgreement(topic, r, state.baseline, m)]));
    const rows = shown.map(r => el('tr', {}, [el('th', {scope: 'row', text: '[' + number1(r) + '] ' + oneLine(r) + (r === state.baseline ? ' (baseline)' : '')}),
      ...columns.map(([name, get]) => {
        const v = get(r);
        return el('td', {class: 'num', text: (name.startsWith('stance') && !predicts(r)) ? 'no stance' : number(v)});
      })]));
    const x = topic.hits[state.baseline] ? Math.min(10, topic.hits[state.baseline].length) : 0;
    const y = topic.hits[run] ? Math.min(10, topic.hits[run].length) : 0;
    const jac = topicAgreement(topic, run, state.baseline, 'Jaccard@10');
    const shared = run !== state.baseline && !missing(jac) ? Math.round(jac * (x + y) / (1 + jac)) : null;
    return el('div', {}, [el('div', {class: 'scroll'}, [el('table', {class: 'topic-values'}, [el('thead', {}, [el('tr', {}, [el('th', {scope: 'col', text: 'run'}),
      ...columns.map(([name]) => el('th', {scope: 'col'}, [breakable(name)]))])]), el('tbody', {}, rows)])]),
      shared === null ? null : el('p', {class: 'note', text: 'Kendall τ and τ_AP of ' + oneLine(run) + ' with the baseline correlate the ' + shared +
        ' document(s) both top 10s hold' + (shared < 2 ? ': fewer than two, so they are undefined.' : '.')})]);
  }
  function render(index, scroll) {
    const nav = el('nav', {class: 'topic-nav', 'aria-label': 'topics'}, [
      el('button', {id: 'prev', type: 'button', 'data-focus': 'prev', text: '‹ previous'}),
      el('span', {id: 'position', text: sequence.length ? 'topic ' + (index + 1) + ' of ' + sequence.length + ' (' + (data.topics.length - sequence.length) + ' filtered out)' : 'no topic passes the filters'}),
      el('button', {id: 'next', type: 'button', 'data-focus': 'next', text: 'next ›'}),
      el('span', {class: 'keys', text: 'keys: → / j next, ← / k previous, c next compared run, b next baseline'})]);
    if (!sequence.length) {
      view.replaceChildren(nav, filters());
      return;
    }
    position = (index + sequence.length) % sequence.length;
    const topic = sequence[position];
    const run = compared();
    const shown = state.showAll ? shownRuns() : [...new Set([state.baseline, run])];
    const judged = Object.entries(topic.judged).map(([n, c]) => n + ': ' + c + ' judged').join(', ');
    const head = el('div', {class: 'topic-head'}, [
      el('h2', {id: 'topic-title', text: 'Topic ' + topic.id + (topic.title ? ': ' + topic.title : '')}),
      topic.description ? el('p', {class: 'note', text: topic.description}) : null,
      topic.objects.length ? el('p', {class: 'note', text: 'objects: ' + topic.objects.join(' vs ')}) : null,
      judged ? el('p', {class: 'note', text: judged}) : null]);
    const columns = el('div', {class: 'columns'}, shown.map(r => el('div', {class: 'column' + (r === state.baseline ? ' baseline' : ''), 'data-run': r},
      [el('h3', {text: '[' + number1(r) + '] ' + oneLine(r) + (r === state.baseline ? ' (baseline)' : (r === run ? ' (compared)' : ''))}),
        ...(topic.hits[r] || []).map(h => card(topic, r, h, run)),
        (topic.hits[r] || []).length ? null : el('p', {class: 'note', text: 'no results for this topic'})])));
    view.replaceChildren(nav, filters(), head, topicValues(topic, shownRuns(), run), run !== state.baseline ? moves(topic, run) : null, columns);
    view.dataset.topic = topic.id;
    view.dataset.compared = run;
    document.getElementById('prev').addEventListener('click', () => go(-1));
    document.getElementById('next').addEventListener('click', () => go(1));
    if (scroll) view.scrollIntoView({block: 'start'});
  }
  function show(id, scroll) {
    const found = id === null || id === undefined ? 0 : sequence.findIndex(t => t.id === id);
    render(found < 0 ? 0 : found, scroll);
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
    keepingFocus(() => show(next.id, true));
  }

  // ------------------------------------------------------------------ start
  document.getElementById('overview-table').classList.add('interactive');
  refresh();
  window.addEventListener('hashchange', () => {
    if (location.hash.startsWith('#t-')) openTopic(decodeURIComponent(location.hash.slice(3)), null);
  });
  document.addEventListener('keydown', event => {
    if (event.altKey || event.ctrlKey || event.metaKey || !event.target.closest) return;
    // letters are typed in text fields only; arrows also move radios, selects and charts
    const typing = event.target.closest('textarea, select, input:not([type=checkbox]):not([type=radio])');
    const arrows = event.key.startsWith('Arrow') && event.target.closest('input, select, textarea, .chart-area');
    if (typing || arrows || event.target.closest('.chart-area')) return;
    const others = visible().filter(r => r !== state.baseline);
    if (event.key === 'ArrowRight' || event.key === 'j') { go(1); event.preventDefault(); }
    else if (event.key === 'ArrowLeft' || event.key === 'k') { go(-1); event.preventDefault(); }
    else if (event.key === 'c' && others.length > 1) {
      state.compared = others[(others.indexOf(compared()) + 1) % others.length]; order(); show(view.dataset.topic, false);
    } else if (event.key === 'b' && runs.length > 1) keepingFocus(() => setBaseline(runs[(runs.indexOf(state.baseline) + 1) % runs.length]));
  });
  const start = location.hash.startsWith('#t-') ? decodeURIComponent(location.hash.slice(3)) : null;
  if (start) openTopic(start, null); else render(0, false);
