(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('explorer-data').textContent);
  const view = document.getElementById('topic-view');
  const others = data.runs.filter(r => r !== data.baseline);
  let compared = others.length ? others[0] : data.baseline;
  let sequence = [];
  let position = 0;

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === 'text') node.textContent = value; else if (key === 'html') node.innerHTML = value;
      else node.setAttribute(key, value);
    }
    for (const child of children || []) if (child) node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    return node;
  }
  const fmt = v => (v === null || v === undefined) ? '–' : v.toFixed(3);
  const value = (topic, run) => topic.values[run] ? topic.values[run][data.main] : null;
  const number = run => data.runs.indexOf(run) + 1;

  function order() {  // biggest loss of the compared run first; topics it was not scored on last
    const scored = [], unscored = [];
    data.topics.forEach(t => {
      const a = value(t, data.baseline), b = value(t, compared);
      (a === null || b === null) ? unscored.push([Infinity, t]) : scored.push([b - a, t]);
    });
    scored.sort((x, y) => x[0] - y[0]);
    sequence = scored.concat(unscored).map(p => p[1]);
  }

  function top5(topic, run) {
    return new Set((topic.hits[run] || []).filter(h => h[1] <= 5).map(h => h[0]));
  }

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
        out.push(el('span', {class: 'lab ' + (label === predicted ? 'match' : 'mismatch'),
                             text: name + ': judged ' + label + (predicted && predicted !== 'Q0' ? ', run says ' + predicted : '')}));
      } else if (kind === 'image') {
        const on = Object.entries(label).filter(([, v]) => v).map(([k]) => k);
        out.push(el('span', {class: 'lab ' + (on.includes(predicted) ? 'match' : 'mismatch'),
                             text: name + ': ' + (on.length ? on.join(' ') : 'none')}));
      } else {
        const g = Math.max(0, label);
        if (grade === null) grade = g;
        out.push(el('span', {class: 'lab g' + g, text: name + ' ' + label}));
      }
    }
    return {nodes: out, grade: grade, judged: judgedAny};
  }

  function card(topic, run, hit) {
    const [docid, rank, score, column2] = hit;
    const info = topic.docs[docid] || {};
    const lab = labels(topic, docid, column2);
    const classes = ['card'];
    if (!lab.judged) classes.push('unjudged'); else if (lab.grade !== null) classes.push('g' + lab.grade);
    if (info.absent) classes.push('absent');
    const elsewhere = data.runs.filter(r => r !== run).map(r => '[' + number(r) + '] ' + (info.ranks && info.ranks[r] ? '#' + info.ranks[r] : '–'));
    let moved = null;
    if (rank <= 5 && run !== data.baseline && !top5(topic, data.baseline).has(docid)) moved = el('span', {class: 'moved in', text: 'new in top 5'});
    if (rank <= 5 && run === data.baseline && others.length && !top5(topic, compared).has(docid)) moved = el('span', {class: 'moved out', text: 'not in [' + number(compared) + ']\'s top 5'});
    const head = el('div', {class: 'head'}, [
      el('span', {class: 'rank', text: '#' + rank + ' '}), el('span', {class: 'docid', text: docid}),
      el('span', {class: 'score', text: ' · ' + score}),
      column2 && column2 !== 'Q0' ? el('span', {class: 'stance', text: column2}) : null, moved]);
    const parts = [head];
    if (data.format === 'IMAGE') parts.push(el('div', {class: 'thumb t-' + docid, role: 'img', 'aria-label': docid}));
    parts.push(el('div', {class: 'labels'}, lab.nodes));
    if (elsewhere.length) parts.push(el('div', {class: 'others', text: 'elsewhere: ' + elsewhere.join(' · ')}));
    if (info.absent) parts.push(el('div', {class: 'len', text: 'not in the corpus'}));
    else if (info.words !== undefined) parts.push(el('div', {class: 'len', text: info.words + ' words'}));
    if (info.snippet) {
      const text = el('div', {class: 'snippet', html: info.snippet, title: 'click: whole snippet'});
      text.addEventListener('click', () => text.classList.toggle('open'));
      parts.push(text);
    }
    return el('div', {class: classes.join(' '), 'data-docid': docid, 'data-run': run}, parts);
  }

  function moves(topic) {
    const base = top5(topic, data.baseline), mine = top5(topic, compared);
    const entered = [...mine].filter(d => !base.has(d)), left = [...base].filter(d => !mine.has(d));
    const describe = d => {
      const l = labels(topic, d, null).nodes.map(n => n.textContent).join(', ');
      return el('span', {class: 'docid', text: d + ' (' + l + ') '});
    };
    return el('div', {class: 'moves'}, [
      el('b', {text: 'Top 5 of ' + compared + ' against ' + data.baseline + ': '}),
      el('span', {class: 'up', text: 'entered ' + entered.length + ': '}), ...entered.map(describe),
      el('span', {class: 'down', text: ' left ' + left.length + ': '}), ...left.map(describe)]);
  }

  function render(index, scroll) {
    if (!sequence.length) return;
    position = (index + sequence.length) % sequence.length;
    const topic = sequence[position];
    const select = el('select', {id: 'compared', 'aria-label': 'compared run'},
      others.map(r => el('option', {value: r, selected: r === compared ? 'selected' : null, text: r})));
    select.addEventListener('change', () => { compared = select.value; order(); show(topic.id, false); });
    const nav = el('nav', {class: 'topic-nav'}, [
      el('button', {id: 'prev', type: 'button', text: '‹ previous'}),
      el('span', {id: 'position', text: 'topic ' + (position + 1) + ' of ' + sequence.length + ', ordered by ' +
                  data.main + ' of the compared run − baseline'}),
      el('button', {id: 'next', type: 'button', text: 'next ›'}),
      others.length ? el('label', {}, ['compared: ', select]) : null,
      el('span', {class: 'keys', text: 'keys: → / j next, ← / k previous, c next compared run'})]);
    const rows = data.runs.map(r => el('tr', {}, [el('th', {text: '[' + number(r) + '] ' + r + (r === data.baseline ? ' (baseline)' : '')}),
      ...data.measures.map(m => el('td', {class: 'num', text: fmt(topic.values[r][m])}))]));
    const values = el('table', {class: 'topic-values'}, [
      el('thead', {}, [el('tr', {}, [el('th', {text: 'run'}), ...data.measures.map(m => el('th', {text: m}))])]),
      el('tbody', {}, rows)]);
    const judged = Object.entries(topic.judged).map(([n, c]) => n + ': ' + c + ' judged').join(', ');
    const head = el('div', {class: 'topic-head'}, [
      el('h2', {id: 'topic-title', text: 'Topic ' + topic.id + (topic.title ? ': ' + topic.title : '')}),
      topic.description ? el('p', {class: 'note', text: topic.description}) : null,
      topic.objects.length ? el('p', {class: 'note', text: 'objects: ' + topic.objects.join(' vs ')}) : null,
      el('p', {class: 'note', text: judged})]);
    const columns = el('div', {class: 'columns', style: 'grid-template-columns: repeat(' + data.runs.length + ', minmax(240px, 1fr))'},
      data.runs.map(r => el('div', {class: 'column' + (r === data.baseline ? ' baseline' : ''), 'data-run': r},
        [el('h3', {text: '[' + number(r) + '] ' + r + (r === data.baseline ? ' (baseline)' : '')}),
         ...(topic.hits[r] || []).map(h => card(topic, r, h)),
         (topic.hits[r] || []).length ? null : el('p', {class: 'note', text: 'no results for this topic'})])));
    view.replaceChildren(nav, head, values, others.length ? moves(topic) : null, columns);
    view.dataset.topic = topic.id;
    document.getElementById('prev').addEventListener('click', () => go(-1));
    document.getElementById('next').addEventListener('click', () => go(1));
    if (scroll) view.scrollIntoView({block: 'start'});
  }

  function show(id, scroll) {
    const index = sequence.findIndex(t => t.id === id);
    render(index < 0 ? 0 : index, scroll);
  }
  function go(step) {
    const next = sequence[(position + step + sequence.length) % sequence.length];
    history.replaceState(null, '', '#t-' + next.id);
    show(next.id, true);
  }

  order();
  window.addEventListener('hashchange', () => {
    if (location.hash.startsWith('#t-')) show(decodeURIComponent(location.hash.slice(3)), true);
  });
  document.addEventListener('keydown', event => {
    if (event.target.closest && event.target.closest('input, select, textarea')) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === 'ArrowRight' || event.key === 'j') { go(1); event.preventDefault(); }
    else if (event.key === 'ArrowLeft' || event.key === 'k') { go(-1); event.preventDefault(); }
    else if (event.key === 'c' && others.length > 1) {
      compared = others[(others.indexOf(compared) + 1) % others.length]; order(); show(view.dataset.topic, false);
    }
  });
  const start = location.hash.startsWith('#t-') ? decodeURIComponent(location.hash.slice(3)) : null;
  if (start) show(start, true); else render(0, false);
})();
