  // ------------------------------------------------------------------ exports (export.py: the same tables; names and headers from the data)
  const columns = () => data.measures.length ? data.measures.map(m => ['measure', m]) : data.agreement_measures.map(m => ['agreement', m]);
  const exportValue = (kind, name, run) => kind === 'measure' ? cellMean(run, name) : agreementMean(run, state.baseline, name);
  function caption(shown) {
    if (!data.measures.length) return "Agreement of each run's ranking with " + oneLine(state.baseline) + "'s (no judgements): means over the " +
      'topics both rank; RBO with p = ' + data.rbo_p + ', rank correlations over the documents both top 10s hold.';
    const floor = data.test === 'randomization' ? " ≤: p at the randomization test's floor, 2/(" + data.resamples.toLocaleString('en-US') + ' + 1) when the sign flips are sampled.' : '';
    return "Means over topics (topics: how many most of a run's means are taken over); best per column in bold; † significantly different from the baseline " +
      oneLine(state.baseline) + ' (α = ' + data.alpha + ', ' + data.test_name + ', ' + data.correction_names[state.correction] + ' correction over the ' +
      (shown.length - 1) + ' runs tested); in brackets Δ, p and n (the topics both are scored on) against the baseline.' + floor;
  }
  function topicsOf(run) {  // export.topics_of: the count most of a run's means are over (ties: the larger)
    const found = Object.values(data.cells[run] || {}).map(c => c.topics);
    if (!found.length) return null;
    const count = n => found.filter(x => x === n).length;
    return found.reduce((best, n) => (count(n) > count(best) || (count(n) === count(best) && n > best)) ? n : best);
  }
  function exportRows(shown) {
    const cols = columns(), tests = testsOf(shown);
    const best = cols.map(([kind, name]) => {
      const values = shown.map(r => exportValue(kind, name, r)).filter(v => !missing(v));
      return values.length && kind === 'measure' && hasBest(name) ? Math.max(...values) : null;
    });
    return shown.map(run => [run, cols.map(([kind, name], c) => {
      const value = exportValue(kind, name, run);
      return missing(value) ? null : [value, value === best[c], kind === 'measure' ? (tests[name] || {})[run] || null : null];
    })]);
  }
  // export._overview: the same rows in Markdown and LaTeX, each cell escaped by the format's escape
  function overview(shown, escape, bold, dagger, headerOf, head) {
    const cols = columns(), counted = data.measures.length > 0;
    const header = [head].concat(counted ? ['topics'] : [], cols.map(c => headerOf(c[1]))).map(escape);
    const rows = exportRows(shown).map(([run, cells]) => {
      const label = run === state.baseline ? oneLine(run) + ' (baseline)' : run;
      const n = counted ? [topicsOf(run) === null ? '–' : String(topicsOf(run))] : [];
      return [label].concat(n).map(escape).concat(cells.map(cell => {
        if (!cell) return escape('–');
        const [value, best, test] = cell;
        const note = test && test.delta !== null ? ' (' + signed(test.delta) + ', p ' + correctedPText(test) + ', n ' + test.topics + ')' : '';
        return (best ? bold(escape(number(value))) : escape(number(value))) + escape(note) + (test && test.significant ? dagger : '');
      }));
    });
    return [header, rows, cols.length + (counted ? 1 : 0)];
  }
  function markdown(shown) {
    const [header, rows, count] = overview(shown, markdownEscape, t => '**' + t + '**', '†', name => name, 'run');
    const lines = ['| ' + header.join(' | ') + ' |', '|---|' + Array.from({length: count}, () => '---:').join('|') + '|'];
    for (const row of rows) lines.push('| ' + row.join(' | ') + ' |');
    return lines.join('\n') + '\n\n' + markdownEscape(caption(shown)) + '\n';
  }
  function latex(shown) {
    const [header, rows, count] = overview(shown, latexEscape, t => '\\textbf{' + t + '}', '$^{\\dagger}$',
      name => (data.headers || {})[name] || name, 'Run');
    const lines = ['% touche explore: needs \\usepackage{booktabs}', '\\begin{table}[t]', '  \\centering',
      '  \\caption{' + latexEscape(caption(shown)) + '}', '  \\begin{tabular}{l' + 'r'.repeat(count) + '}', '    \\toprule',
      '    ' + header.join(' & ') + ' \\\\', '    \\midrule'];
    for (const row of rows) lines.push('    ' + row.join(' & ') + ' \\\\');
    lines.push('    \\bottomrule', '  \\end{tabular}', '\\end{table}');
    return lines.join('\n') + '\n';
  }
  function csv(shown) {
    const stanceQrels = Object.keys(data.qrels).find(n => data.qrels[n] === 'stance');
    const lines = ['run,query_id,measure,value'];
    const row = (run, topic, measure, value) => lines.push([csvText(run), csvText(topic), csvText(measure)].map(csvCell).join(',') + ',' + csvValue(value));
    for (const topic of data.topics) {
      for (const run of shown) {
        for (const m of data.measures) { const v = topic.values[run][m]; if (!missing(v)) row(run, topic.id, m, v); }
        const found = topic.stance && Object.keys(topic.stance).length ? topic.stance[run] : null;
        if (found && stanceQrels) { row(run, topic.id, stanceQrels + ':stance.F1_macro', found[0]); row(run, topic.id, stanceQrels + ':stance.accuracy', found[1]); }
        if (topic.agreement && run !== state.baseline) {
          for (const m of data.agreement_measures) { const v = topicAgreement(topic, run, state.baseline, m); if (!missing(v)) row(run, topic.id, m + ' vs ' + oneLine(state.baseline), v); }
        }
      }
    }
    return lines.join('\n') + '\n';
  }
  const EXPORTS = {markdown: markdown, latex: latex, csv: csv};
  window.toucheExports = kind => EXPORTS[kind](shownRuns());  // for the tests: what the buttons hand out
  function showExport(kind) {
    const shown = shownRuns();
    const text = EXPORTS[kind](shown);
    const panel = document.getElementById('export');
    const url = URL.createObjectURL(new Blob([text], {type: kind === 'csv' ? 'text/csv' : 'text/plain'}));
    const name = 'explore-' + (kind === 'csv' ? 'per-topic.csv' : (kind === 'latex' ? 'overview.tex' : 'overview.md'));
    const area = el('textarea', {id: 'export-text', readonly: true, rows: '10', 'aria-label': kind + ' export', text: text});
    panel.hidden = false;
    panel.replaceChildren(el('p', {class: 'note', text: (kind === 'csv' ? 'Per-topic values of the ' + shown.length + ' runs shown (tidy: run, query_id, measure, value), agreement with ' + oneLine(state.baseline)
      : 'The overview of the ' + shown.length + ' runs shown, in its order, against ' + oneLine(state.baseline) + ', as ' + (kind === 'latex' ? 'LaTeX (booktabs)' : 'Markdown')) + '.'}),
      area, el('a', {href: url, download: name, id: 'export-download', class: 'download', text: 'download ' + name}));
    area.focus(); area.select();
  }

