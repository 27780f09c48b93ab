  // ------------------------------------------------------------------ exports (explorer_export.py, line for line)
  const TEST_NAMES = {randomization: 'paired randomization test', t: 'paired t-test', wilcoxon: 'Wilcoxon signed-rank test'};
  const CORRECTION_NAMES = {holm: 'Holm', bonferroni: 'Bonferroni', fdr_bh: 'Benjamini-Hochberg', none: 'no'};
  const columns = () => data.measures.length ? data.measures.map(m => ['measure', m]) : data.agreement_measures.map(m => ['agreement', m]);
  const exportValue = (kind, name, run) => kind === 'measure' ? cellMean(run, name) : agreementMean(run, state.baseline, name);
  function caption(shown) {
    if (!data.measures.length) return "Agreement of each run's ranking with " + oneLine(state.baseline) + "'s (no judgements): means over the " +
      'topics both rank; RBO with p = ' + data.rbo_p + ', rank correlations over the documents both top 10s hold.';
    const floor = data.test === 'randomization' ? " ≤: p at the randomization test's floor, 2/(" + data.resamples.toLocaleString('en-US') + ' + 1) when the sign flips are sampled.' : '';
    return 'Means over topics; best per column in bold; † significantly different from the baseline ' + oneLine(state.baseline) +
      ' (α = ' + data.alpha + ', ' + TEST_NAMES[data.test] + ', ' + CORRECTION_NAMES[state.correction] + ' correction over the ' +
      (shown.length - 1) + ' runs tested); Δ and p against the baseline.' + floor;
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
  function markdown(shown) {
    const cols = columns();
    const lines = ['| run | ' + cols.map(c => c[1]).join(' | ') + ' |', '|---|' + cols.map(() => '---:').join('|') + '|'];
    for (const [run, cells] of exportRows(shown)) {
      const text = cells.map(cell => {
        if (!cell) return '–';
        const [value, best, test] = cell;
        let t = best ? '**' + number(value) + '**' : number(value);
        if (test && test.delta !== null) t += ' (' + signed(test.delta) + ', p ' + correctedPText(test) + ')' + (test.significant ? '†' : '');
        return t;
      });
      const label = run === state.baseline ? oneLine(run) + ' (baseline)' : oneLine(run);
      lines.push('| ' + markdownEscape(label) + ' | ' + text.join(' | ') + ' |');
    }
    return lines.join('\n') + '\n\n' + caption(shown) + '\n';
  }
  function latex(shown) {
    const cols = columns();
    const lines = ['% touche explore: needs \\usepackage{booktabs}', '\\begin{table}[t]', '  \\centering',
      '  \\caption{' + latexEscape(caption(shown)) + '}', '  \\begin{tabular}{l' + 'r'.repeat(cols.length) + '}', '    \\toprule',
      '    Run & ' + cols.map(c => latexEscape(c[1])).join(' & ') + ' \\\\', '    \\midrule'];
    for (const [run, cells] of exportRows(shown)) {
      const text = cells.map(cell => {
        if (!cell) return '--';
        const [value, best, test] = cell;
        return (best ? '\\textbf{' + number(value) + '}' : number(value)) + (test && test.significant ? '$^{\\dagger}$' : '');
      });
      lines.push('    ' + latexEscape(oneLine(run)) + (run === state.baseline ? ' (baseline)' : '') + ' & ' + text.join(' & ') + ' \\\\');
    }
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

