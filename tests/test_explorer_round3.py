"""The explorer, round 3, in a real browser (Debian's Chromium through Playwright) on the 16
official Task 2 2022 runs (``../shared``) and on 100 runs: what the page shows is what it exports,
focus stays where the reader works, rank correlations are undefined where two runs share nothing,
the run × run heat map, names a spreadsheet or a table would misread, and p-values that say their
floor (tests/explorer_pages.py writes the pages).
"""
from __future__ import annotations

import csv
import io
import itertools
import math

import numpy as np
import pytest
from explorer_pages import FORMULA_NAME, QRELS, TWO_LINE_NAME, opened, overview_runs
from scipy import stats
from test_explorer import doc_of, hit_ids, page_data, runs_of

from touche import api
from touche.errors import ToucheError
from touche.retrieval.evaluation.agreement import pair_index
from touche.retrieval.evaluation.resampling import sign_flips
from touche.retrieval.evaluation.significance import paired_randomization_test, pairwise
from touche.retrieval.experiments.explorer.build import write_explorer
from touche.retrieval.experiments.explorer.export import (
    EXPORTS,
    BaselineTest,
    View,
    corrected_p_text,
    one_line,
    oriented,
    p_text,
)
from touche.retrieval.formats.qrels import STANCE_LABELS

PAGES = ["demo", "no_qrels_page", "twenty", "stance_page", "image_page", "official", "hundred"]
TAU = ("Kendall τ@10", "τ_AP@10")


def _page(request, which):
    return request.getfixturevalue("demo_out") / "explore.html" if which == "demo" else request.getfixturevalue(which)


def _active(page) -> str | None:
    return page.evaluate(
        "document.activeElement && (document.activeElement.dataset.focus || document.activeElement.id)"
    )


# --------------------------------------------------------------------------- the page's exports are the command's
@pytest.mark.parametrize("which", PAGES)
def test_the_pages_exports_of_its_first_view_are_the_commands_byte_for_byte(browser, which, request):
    path = _page(request, which)
    data = page_data(path)
    with opened(browser, path) as (page, errors):
        for kind, export in EXPORTS.items():
            assert page.evaluate("kind => toucheExports(kind)", kind) == export(data), kind
        assert errors == []


# --------------------------------------------------------------------------- 1: what you see is what you export
@pytest.mark.parametrize("which", ["official", "hundred"])
def test_exports_header_confusions_and_topic_table_follow_hidden_runs_order_baseline_and_correction(
        browser, which, request):
    path = request.getfixturevalue(which)
    data = page_data(path)
    runs = data["runs"]
    hidden = [runs[2], runs[7], runs[11]]
    baseline = runs[5]
    with opened(browser, path) as (page, errors):
        page.click(".runs-shown summary")
        for run in hidden:
            page.uncheck(f"#show-{runs.index(run) + 1}")
        page.select_option("#baseline", baseline)
        page.click(f'#overview-table button.sort[data-key="{data["main"]}"]')
        page.select_option("#correction", "bonferroni")
        shown = overview_runs(page)
        assert set(shown) == set(runs) - set(hidden)
        means = [data["cells"][r][data["main"]]["mean"] for r in shown]
        scored = [m for m in means if m is not None]
        assert scored == sorted(scored, reverse=True) and means[:len(scored)] == scored  # unscored last
        view = View(baseline, tuple(shown), "bonferroni")
        for kind, export in EXPORTS.items():
            assert page.evaluate("kind => toucheExports(kind)", kind) == export(data, view), kind
        page.click("#export-latex")
        latex = page.input_value("#export-text")
        assert latex == EXPORTS["latex"](data, view) and "Bonferroni correction over the" in latex
        assert f"{len(shown) - 1} runs tested" in latex and not any(f"{one_line(h)} &" in latex for h in hidden)
        page.select_option("#correction", "holm")  # the open export follows the view
        assert page.input_value("#export-text") == EXPORTS["latex"](data, View(baseline, tuple(shown), "holm"))
        assert page.inner_text("#meta-baseline") == one_line(baseline)
        assert page.inner_text("#note-tested") == str(len(shown) - 1)
        captions = page.eval_on_selector_all("table.confusion caption", "cs => cs.map(c => c.textContent)")
        assert captions == [one_line(r) for r in shown if (data["stance"].get(r) or {}).get("confusion")]
        assert (len(captions) > 0) == (which == "official")
        headers = page.eval_on_selector_all("#topics-table thead th", "hs => hs.map(h => h.textContent)")
        assert headers == ["topic", "title", *(one_line(r) for r in shown)]
        assert errors == []


# --------------------------------------------------------------------------- 2: the moves panel's stance
def test_the_moves_panel_says_the_stance_each_run_gives_as_the_cards_do(browser, official):
    data = page_data(official)
    base = data["baseline"]

    def top5(topic, run):
        return hit_ids(topic, run)[:5]

    def said(topic, run, docid):
        return next(h[3] for h in topic["hits"][run] if topic["docs"][h[0]] == docid)

    found = next((t, r, d) for r in data["runs"] if r != base and data["stance"][r]["predicts"]
                 for t in data["topics"] if t["hits"].get(r) and t["hits"].get(base)
                 for d in top5(t, r) if d not in top5(t, base)
                 and doc_of(t, d)["labels"]["stance"] is not None and said(t, r, d) in STANCE_LABELS)
    topic, run, docid = found
    expected = f"stance: judged {doc_of(topic, docid)['labels']['stance']}, run says {said(topic, run, docid)}"
    with opened(browser, official) as (page, errors):
        page.evaluate("id => { location.hash = '#t-' + id; }", topic["id"])
        page.wait_for_function("id => document.getElementById('topic-view').dataset.topic === id", arg=topic["id"])
        page.select_option("#compared", run)
        moves = page.inner_text(".moves")
        assert expected in moves
        card = page.locator(f'.column[data-run="{run}"] .card[data-docid="{docid}"] .lab', has_text="stance:")
        assert card.inner_text() == expected
        left = [d for d in top5(topic, base) if d not in top5(topic, run) and doc_of(topic, d)["labels"]["stance"]
                and said(topic, base, d) in STANCE_LABELS]
        for d in left:  # what left the top 5 is described with the baseline's stance
            assert f"stance: judged {doc_of(topic, d)['labels']['stance']}, run says {said(topic, base, d)}" in moves
        assert errors == []


# --------------------------------------------------------------------------- 3 and 4: topic and focus kept
@pytest.mark.parametrize("which", ["official", "hundred"])
def test_another_compared_run_keeps_the_open_topic_and_the_focus(browser, which, request):
    path = request.getfixturevalue(which)
    data = page_data(path)
    with opened(browser, path) as (page, errors):
        first = page.locator("#topic-view").get_attribute("data-topic")
        target = next(t["id"] for t in reversed(data["topics"]) if t["id"] != first)
        page.evaluate("id => { location.hash = '#t-' + id; }", target)
        page.wait_for_function("id => document.getElementById('topic-view').dataset.topic === id", arg=target)
        compared = page.locator("#topic-view").get_attribute("data-compared")
        other = next(r for r in data["runs"][1:] if r != compared)
        page.focus("#compared")  # as a reader choosing in it
        page.select_option("#compared", other)
        view = page.locator("#topic-view")
        assert view.get_attribute("data-topic") == target and view.get_attribute("data-compared") == other
        assert _active(page) == "compared"
        assert errors == []


@pytest.mark.parametrize("which", ["official", "hundred"])
def test_focus_stays_on_the_control_used_and_the_runs_panel_stays_open(browser, which, request):
    path = request.getfixturevalue(which)
    data = page_data(path)
    runs = data["runs"]
    with opened(browser, path) as (page, errors):
        key = data["main"]
        page.focus(f'#overview-table button.sort[data-key="{key}"]')
        page.keyboard.press("Enter")
        assert _active(page) == f"sort:{key}"
        page.keyboard.press("Enter")  # again: the other direction, focus still there
        assert _active(page) == f"sort:{key}"
        assert page.get_attribute(f'#overview-table th:has(button[data-key="{key}"])', "aria-sort") == "ascending"

        page.focus("#baseline")
        page.keyboard.press("ArrowDown")
        assert page.inner_text("#meta-baseline") == one_line(runs[1]) and _active(page) == "baseline"
        page.keyboard.press("ArrowDown")
        assert page.inner_text("#meta-baseline") == one_line(runs[2]) and _active(page) == "baseline"

        page.click(".runs-shown summary")
        for number in range(5, 10):  # five runs hidden without reopening the panel
            page.uncheck(f"#show-{number}")
            assert _active(page) == f"show:{number}"
            assert page.evaluate("document.querySelector('.runs-shown').open")
        assert len(overview_runs(page)) == len(runs) - 5
        page.focus("#show-12")
        page.keyboard.press("Space")
        page.keyboard.press("Tab")
        assert _active(page) == "show:13" and not page.is_checked("#show-12")
        assert errors == []


# --------------------------------------------------------------------------- 5: layout
_MID_WORD_BREAKS = """() => {
  const bad = [];
  for (const th of document.querySelectorAll('#overview-table thead th, table.topic-values thead th')) {
    const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
    let top = null, previous = null, node;
    while ((node = walker.nextNode())) {
      for (let i = 0; i < node.length; i++) {
        const range = document.createRange(); range.setStart(node, i); range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (!node.data[i].trim()) { previous = ' '; continue; }
        if (!rect) continue;
        if (top !== null && rect.top > top + 2 && i > 0 && !/[\\s:.]/.test(previous)) bad.push(th.textContent);
        top = rect.top; previous = node.data[i];
      }
    }
  }
  return bad;
}"""


@pytest.mark.parametrize("which", ["official", "hundred"])
@pytest.mark.parametrize("width", [1400, 1000])
def test_headers_break_only_between_words_and_names_are_whole(browser, which, width, request):
    path = request.getfixturevalue(which)
    data = page_data(path)
    with opened(browser, path, width=width) as (page, errors):
        assert page.evaluate(_MID_WORD_BREAKS) == []
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # wide tables scroll in their box
        names = page.eval_on_selector_all(
            "#overview-table .name", "ns => ns.map(n => [n.textContent, n.scrollWidth <= n.clientWidth + 1])")
        assert [text for text, _ in names] == [f"[{i}] {one_line(r)}" + (" (baseline)" if r == data["baseline"] else "")
                                               for i, r in enumerate(data["runs"], 1)]
        assert all(whole for _, whole in names)
        page.click("#export-csv")
        box = page.locator("#export-download").bounding_box()
        assert box["height"] >= 24 and box["width"] >= 24  # WCAG 2.2's target size
        assert errors == []


def test_without_javascript_judged_at_5_is_not_a_best_value(browser, official):
    data = page_data(official)
    judged = [i for i, m in enumerate(data["measures"]) if m.endswith("trec.Judged@5")]
    assert judged
    with opened(browser, official, javascript=False) as (page, errors):
        best = page.eval_on_selector_all(
            "#overview-table tbody tr", "rows => rows.map(r => Array.from(r.querySelectorAll('td'))"
            ".map(td => td.classList.contains('best')))")
        columns = list(zip(*best))
        assert all(not any(columns[i]) for i in judged)
        assert any(any(column) for i, column in enumerate(columns) if i not in judged)


# --------------------------------------------------------------------------- 6: τ where two runs share nothing
def test_rank_correlations_of_runs_sharing_nothing_are_undefined_in_the_page(browser, hundred):
    data = page_data(hundred)
    runs, columns = data["runs"], data["agreement_measures"]
    disjoint = data["agreement"][pair_index(0, 99, 100)]
    assert disjoint[columns.index("RBO")] == 0 and all(disjoint[columns.index(m)] is None for m in TAU)
    twins = data["agreement"][pair_index(10, 11, 100)]  # a family: one ranking, two neighbours swapped
    assert all(twins[columns.index(m)] > 0.8 for m in TAU)
    with opened(browser, hundred) as (page, errors):
        row = page.locator(f'#overview-table tr[data-run="{runs[99]}"] td.agree').all_inner_texts()
        assert [row[columns.index(m)] for m in TAU] == ["–", "–"]
        page.select_option("#compared", runs[99])
        assert "correlate the 0 document(s) both top 10s hold: fewer than two, so they are undefined" in \
            page.inner_text("#topic-view")
        assert "unlike DiffIR's" in page.inner_text("#overview-note")
        assert errors == []


# --------------------------------------------------------------------------- 7: every two runs, a heat map
def test_the_heat_map_orders_runs_by_similarity_and_a_cell_opens_the_pair(browser, hundred):
    data = page_data(hundred)
    runs = data["runs"]
    order = [runs[i] for i in data["similarity"]]
    for family in range(1, 9):  # near-duplicates sit together
        positions = sorted(order.index(r) for r in runs[10 * family:10 * family + 10])
        assert positions == list(range(positions[0], positions[0] + 10)), family
    with opened(browser, hundred) as (page, errors):
        labels = page.eval_on_selector_all("#heat-table tbody th", "hs => hs.map(h => h.title)")
        assert labels == order
        cell = page.locator(f'#heat-table td[data-first="{runs[40]}"][data-second="{runs[70]}"]')
        assert "RBO" in cell.get_attribute("title")
        cell.click()
        assert page.inner_text("#meta-baseline") == runs[40]
        assert page.locator("#topic-view").get_attribute("data-compared") == runs[70]
        page.click(f'#overview-table button.sort[data-key="{data["main"]}"]')
        page.select_option("#heat-order", "overview")
        labels = page.eval_on_selector_all("#heat-table tbody th", "hs => hs.map(h => h.title)")
        assert labels == overview_runs(page)
        assert errors == []


def test_the_heat_map_of_sixteen_runs_shows_its_values(browser, official):
    data = page_data(official)
    with opened(browser, official) as (page, errors):
        cells = page.locator("#heat-table tbody tr").first.locator("td")
        assert page.locator("#heat-table tbody tr").count() == 16 and cells.count() == 16
        first = [data["runs"][i] for i in data["similarity"]][0]
        values = cells.all_inner_texts()
        assert "1.00" in values and all(v == "1.00" or 0 <= float(v) <= 1 for v in values)
        assert first in page.locator("#heat-table tbody th").first.get_attribute("title")


# --------------------------------------------------------------------------- 9: names a table would misread
def test_formula_names_are_text_and_line_breaks_stay_in_one_row(browser, hundred):
    data = page_data(hundred)
    assert FORMULA_NAME in data["runs"] and TWO_LINE_NAME in data["runs"]
    table = EXPORTS["csv"](data)
    rows = list(csv.reader(io.StringIO(table)))
    assert all(not cell.startswith(("=", "+", "-", "@")) for row in rows for cell in row[:3])
    assert any(row[0] == "'" + FORMULA_NAME for row in rows)
    markdown = EXPORTS["markdown"](data).split("\n\n")[0].splitlines()
    assert len(markdown) == 2 + len(data["runs"]) and all(line.startswith("| ") and line.endswith(" |")
                                                          for line in markdown[:1] + markdown[2:])
    assert any(line.startswith("| two lines |") for line in markdown)
    latex = EXPORTS["latex"](data)
    body = latex.split("\\begin{tabular}", 1)[1].split("\\end{tabular}", 1)[0]
    assert "\n\n" not in body and "two lines &" in body
    # HTML is text in Markdown, a cell's end is escaped, LaTeX's specials are commands
    assert any(line.startswith("| x\\|y&lt;img src=x onerror=alert(1)&gt; |") for line in markdown)
    assert not any("<" in line or ">" in line for line in markdown)
    assert ('"\\textgreater{}\\textless{}svg onload=alert(1)\\textgreater{}\\_50\\%\\&\\$\\#\\{\\}'
            '\\textasciitilde{}\\textasciicircum{}\\textbackslash{} &') in body
    with opened(browser, hundred) as (page, errors):
        for kind in EXPORTS:
            assert page.evaluate("kind => toucheExports(kind)", kind) == EXPORTS[kind](data)
        assert "two lines" in page.locator("#overview-table tbody tr:nth-child(3) .name").inner_text()
        assert errors == []


# --------------------------------------------------------------------------- 8: p-values that say what they mean
def test_p_digits_never_disagree_with_the_mark_and_the_floor_is_said():
    assert p_text(0.049595) == "0.0496" and p_text(0.0504) == "0.050" and p_text(0.04996) == "0.04996"
    assert p_text(0.0499999) == "0.0499999" and p_text(0.05) == "0.050"
    assert p_text(0.2) == "0.200" and p_text(1.2e-8) == "1.2e-8" and p_text(None) == "–"
    floor = 2 / 10_001
    assert p_text(floor, floor=floor) == "≤ 2.0e-4" and p_text(0.01, floor=floor) == "0.010"
    at_floor = BaselineTest(0.2, floor, 20, 0, 0, floor, p_corrected=15 * floor, significant=True)
    assert corrected_p_text(at_floor) == "≤ 0.003"  # Holm over 15: the true corrected p is at most this
    exact = BaselineTest(0.2, 2 / 2 ** 5, 5, 0, 0, None, p_corrected=0.0625, significant=False)
    assert corrected_p_text(exact) == "0.062"  # an enumerated p is exact, not a bound


def test_every_sign_flip_is_enumerated_up_to_sixteen_topics():
    assert sign_flips(16, 10, 1)[1] is True and sign_flips(17, 10_000, 1)[1] is False
    assert sign_flips(17, 2 ** 17, 1)[1] is True
    rng = np.random.default_rng(8)
    a, b = rng.random(12), rng.random(12)
    diffs = a - b
    observed = abs(diffs.mean())
    by_hand = sum(abs(np.dot(signs, diffs) / 12) >= observed - 1e-12
                  for signs in itertools.product((1, -1), repeat=12)) / 2 ** 12
    assert paired_randomization_test(a, b, resamples=10) == pytest.approx(by_hand, abs=1e-12)
    [tested] = pairwise([{str(t): v for t, v in enumerate(x)} for x in (b, a)], [(0, 1)],
                         resamples=10)
    assert tested.p == pytest.approx(by_hand, abs=1e-12) and tested.exact


def _twenty_topic_runs(tmp_path):
    """Two runs over 20 topics, one ranking the relevant document first on every topic."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 d{t}a 2\n{t} 0 d{t}b 0\n" for t in range(1, 21)))
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text("".join(f"{t} Q0 d{t}a 1 2 g\n{t} Q0 d{t}b 2 1 g\n" for t in range(1, 21)))
    bad.write_text("".join(f"{t} Q0 d{t}b 1 2 b\n{t} Q0 d{t}a 2 1 b\n" for t in range(1, 21)))
    return qrels, [bad, good]


def test_the_page_says_the_floor_of_a_sampled_test_and_resamples_lower_it(tmp_path):
    qrels, runs = _twenty_topic_runs(tmp_path)
    data = page_data(write_explorer(runs, qrels, tmp_path / "p.html", resamples=99))
    measure = "relevance:touche.nDCG@5"
    tested = oriented(data, measure, "good", "bad")
    assert tested.floor == pytest.approx(2 / 100) and tested.p == pytest.approx(2 / 100) and data["resamples"] == 99
    markdown = EXPORTS["markdown"](data)
    assert "p ≤ 0.020, n 20)" in markdown and "floor, 2/(99 + 1) when the sign flips are sampled" in markdown
    more = page_data(write_explorer(runs, qrels, tmp_path / "q.html", resamples=100_000))
    assert oriented(more, measure, "good", "bad").p == pytest.approx(2 / 100_001)
    with pytest.raises(ToucheError, match="at least one resample"):
        write_explorer(runs, qrels, tmp_path / "r.html", resamples=0)
    assert not (tmp_path / "r.html").exists()


def test_the_command_takes_resamples(tmp_path):
    from test_pipeline import cli
    qrels, runs = _twenty_topic_runs(tmp_path)
    code, text = cli("explore", *map(str, runs), "--qrels", f"relevance={qrels}", "--resamples", "499",
                     "-o", str(tmp_path / "p.html"))
    assert code == 0, text
    assert oriented(page_data(tmp_path / "p.html"), "relevance:touche.nDCG@5", "good", "bad").floor == \
        pytest.approx(2 / 500)
    code, text = cli("explore", *map(str, runs), "--qrels", f"relevance={qrels}", "--resamples", "0", "-o",
                     str(tmp_path / "q.html"))
    assert code != 0 and "at least one resample" in text and not (tmp_path / "q.html").exists()


@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_the_apis_experiment_offers_the_t_and_wilcoxon_tests(demo_out, test):
    runs = runs_of(demo_out)[:3]
    table = api.experiment(runs, QRELS["relevance"], "touche.nDCG@5", test=test, correction="none")
    from touche.retrieval.evaluation.measures import evaluate_rows_per_topic
    from touche.retrieval.formats.gate import read_run
    values = [evaluate_rows_per_topic(read_run(r), QRELS["relevance"],
                                      ["touche.nDCG@5"])["touche.nDCG@5"] for r in runs]
    for name, other in zip(table["run"].iloc[1:], values[1:]):
        common = sorted(set(values[0]) & set(other))
        x, y = [other[t] for t in common], [values[0][t] for t in common]
        expected = stats.ttest_rel(x, y).pvalue if test == "t" else stats.wilcoxon(np.subtract(x, y)).pvalue
        p = table.set_index("run").loc[name, "p"]
        assert (math.isnan(p) and math.isnan(expected)) or p == pytest.approx(expected, rel=1e-9)
