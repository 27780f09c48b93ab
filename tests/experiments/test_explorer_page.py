"""The explorer page in a real browser (Debian's Chromium through Playwright): runs compared
before judgements exist, any run the baseline, runs hidden and sorted, topic filters, stance,
focus and headers, the heat map, τ where two runs share nothing, no horizontal scroll with 20 runs
at 1,400 px, and accessibility (axe-core, keyboard). Its exports and p digits:
test_explorer_exports.py."""
from __future__ import annotations

import pytest

from tests.experiments.test_explorer import doc_of, hit_ids, page_data, runs_of, topic_agreement
from tests.explorer_pages import STANCE_QRELS, axe_violations, opened, overview_runs
from tests.explorer_pages import opened as _opened
from tests.explorer_pages import overview_runs as _overview_runs
from tests.shared import require_shared
from touche.retrieval.evaluation.agreement import jaccard, pair_index, rbo
from touche.retrieval.experiments.explorer.export import (
    one_line,
    oriented,
)
from touche.retrieval.formats.gate import read_run
from touche.retrieval.formats.qrels import STANCE_LABELS


# --------------------------------------------------------------------------- 1: no qrels needed
def test_without_qrels_runs_are_compared_by_how_their_rankings_agree(no_qrels_page, demo_out):
    data = page_data(no_qrels_page)
    assert data["measures"] == [] and data["main"] == "RBO" and data["qrels"] == {}
    files = runs_of(demo_out)
    first, second = ([r.docid for r in read_run(f) if r.qid == "1"] for f in files[:2])
    values = topic_agreement(data, next(t for t in data["topics"] if t["id"] == "1"), *data["runs"][:2])
    # per topic the page stores four decimals (16-bit integers): half a unit of the last one apart at most
    assert values["Jaccard@5"] == pytest.approx(jaccard(first, second, 5), abs=5e-5)
    assert values["RBO"] == pytest.approx(rbo(first[:100], second[:100], 0.9), abs=5e-5)


def test_without_qrels_the_topic_view_starts_where_two_runs_disagree_most(browser, no_qrels_page):
    data = page_data(no_qrels_page)
    with _opened(browser, no_qrels_page) as (page, errors):
        assert errors == [] and page.locator("#overview-table thead th", has_text="RBO").count() == 1
        compared = page.locator("#topic-view").get_attribute("data-compared")
        lowest = min(data["topics"], key=lambda t: (topic_agreement(data, t, compared, data["baseline"])["RBO"],
                                                    data["topics"].index(t)))
        assert page.locator("#topic-view").get_attribute("data-topic") == lowest["id"]
        assert page.locator(".lab.unjudged").count() == 0  # nothing is judged, nothing marked unjudged


def test_with_qrels_agreement_and_judged_at_5_sit_beside_the_measures(browser, demo_out):
    with _opened(browser, demo_out / "explore.html") as (page, errors):
        headers = page.eval_on_selector_all("#overview-table thead th", "hs => hs.map(h => h.innerText)")
        assert any("Judged@5" in h for h in headers) and any(h.startswith("RBO") for h in headers)
        assert any(h.startswith("τ_AP@10") for h in headers) and any("touche.nDCG@5" in h for h in headers)


# --------------------------------------------------------------------------- 2: in-page control, 20 runs
def test_any_run_becomes_the_baseline_in_the_page(browser, twenty):
    data = page_data(twenty)
    with _opened(browser, twenty) as (page, errors):
        new = data["runs"][6]
        page.select_option("#baseline", new)
        assert page.locator(f'#overview-table tr[data-run="{new}"] th').inner_text().endswith("(baseline)")
        other = data["runs"][2]
        expected = oriented(data, data["main"], other, new).delta
        column = data["measures"].index(data["main"]) + 2
        cell = page.locator(f'#overview-table tr[data-run="{other}"] td:nth-child({column})').inner_text()
        assert f"Δ {expected:+.3f}" in cell.replace("−", "-")
        assert page.locator(".chart-area").count() == 19 and errors == []


def test_runs_are_hidden_sorted_and_the_best_is_highlighted(browser, twenty):
    data = page_data(twenty)
    with _opened(browser, twenty) as (page, errors):
        page.click(".runs-shown summary")
        page.uncheck("#show-5")
        assert len(_overview_runs(page)) == 19 and data["runs"][4] not in _overview_runs(page)
        page.click(f'#overview-table button.sort[data-key="{data["main"]}"]')
        shown = _overview_runs(page)
        means = [data["cells"][r][data["main"]]["mean"] for r in shown]
        assert means == sorted(means, reverse=True)
        column = data["measures"].index(data["main"]) + 2
        best = page.locator(f"#overview-table td.best:nth-child({column})")
        assert best.count() >= 1 and best.first.locator("b").inner_text() == f"{max(means):.3f}"
        assert page.get_attribute(f'#overview-table th:has(button[data-key="{data["main"]}"])',
                                  "aria-sort") == "descending"


def test_topics_are_filtered_and_ordered_by_a_chosen_measure(browser, twenty):
    data = page_data(twenty)
    with _opened(browser, twenty) as (page, errors):
        page.select_option("#order", "Jaccard@10")
        compared = page.locator("#topic-view").get_attribute("data-compared")
        def jaccard_of(t):
            return topic_agreement(data, t, compared, data["baseline"])["Jaccard@10"]
        lowest = min(jaccard_of(t) for t in data["topics"])
        shown = next(t for t in data["topics"] if t["id"] == page.locator("#topic-view").get_attribute("data-topic"))
        assert jaccard_of(shown) == lowest
        word = next(t for t in data["topics"] if t["id"] == "3")["title"].split()[1]
        page.fill("#f-word", word)
        page.press("#f-word", "Enter")
        titles = [t["title"] for t in data["topics"] if word.lower() in (t["title"] + " " + t["id"]).lower()]
        assert f"of {len(titles)} ({len(data['topics']) - len(titles)} filtered out)" in page.inner_text("#position")
        page.fill("#f-word", "")
        page.press("#f-word", "Enter")
        page.fill("#f-judged", "1")
        page.press("#f-judged", "Enter")

        judged = next(m for m in data["measures"] if m.endswith("trec.Judged@5"))  # the column's values
        passing = [t for t in data["topics"] if (t["values"][compared][judged] or 1) < 1]
        assert 0 < len(passing) < len(data["topics"])
        assert f"of {len(passing)} ({len(data['topics']) - len(passing)} filtered out)" in page.inner_text("#position")
        assert page.locator("#topic-view").get_attribute("data-topic") in {t["id"] for t in passing}


def test_twenty_runs_fit_1400_pixels_without_horizontal_scroll(browser, twenty):
    with _opened(browser, twenty) as (page, errors):
        width = "document.documentElement.scrollWidth"
        assert page.evaluate(width) <= 1400
        assert page.locator(".column").count() == 2  # the two chosen runs side by side ...
        page.check("#f-all")
        assert page.locator(".column").count() == 20 and page.evaluate(width) <= 1400  # ... the others on demand
        page.click("#export-latex")
        assert page.evaluate(width) <= 1400 and errors == []


# --------------------------------------------------------------------------- 3: stance
def test_stance_per_topic_confusion_matrices_and_a_run_without_stance(browser, stance_page):
    data = page_data(stance_page)
    measure = "stance:stance.F1_macro"
    assert data["stance"]["stance-5"]["predicts"] is False and data["stance"]["stance-1"]["predicts"] is True
    tested = {run: oriented(data, measure, run, "stance-1") for run in ("stance-2", "stance-3", "stance-4", "stance-5")}
    assert all(t.p is not None for run, t in tested.items() if run != "stance-5") and tested["stance-5"].p is None
    with _opened(browser, stance_page) as (page, errors):
        assert "predicts no stance" in page.locator('#overview-table tr[data-run="stance-5"]').inner_text()
        assert page.locator("table.confusion").count() == 4
        counts = data["stance"]["stance-1"]["confusion"]
        assert sum(map(sum, counts)) == sum(
            1 for line in STANCE_QRELS["stance"].read_text().splitlines() if line.strip()
        )
        headers = page.eval_on_selector_all("table.topic-values thead th", "hs => hs.map(h => h.innerText)")
        assert "stance F1 (topic)" in headers and "stance accuracy (topic)" in headers
        topic = page.locator("#topic-view").get_attribute("data-topic")
        f1 = data["topics"][[t["id"] for t in data["topics"]].index(topic)]["stance"]["stance-1"][0]
        row = page.locator('table.topic-values tbody tr', has_text="stance-1").inner_text()
        assert f"{f1:.3f}" in row
        page.select_option("#compared", "stance-5")
        assert page.locator('.column[data-run="stance-5"] .lab.mismatch').count() == 0
        assert page.locator('.column[data-run="stance-5"] .lab', has_text="predicts no stance").count() > 0


# --------------------------------------------------------------------------- 7: accessibility
@pytest.mark.parametrize("which", ["demo", "no qrels", "twenty", "stance", "images", "official", "hundred"])
def test_axe_finds_no_serious_or_critical_wcag_22_aa_violation(browser, which, request):
    """Every page kind against axe-core's WCAG 2.0/2.1/2.2 A and AA rules (target size among them)."""
    path = {"demo": lambda: request.getfixturevalue("demo_out") / "explore.html",
            "no qrels": lambda: request.getfixturevalue("no_qrels_page"),
            "twenty": lambda: request.getfixturevalue("twenty"),
            "stance": lambda: request.getfixturevalue("stance_page"),
            "images": lambda: request.getfixturevalue("image_page"),
            "official": lambda: request.getfixturevalue("official"),
            "hundred": lambda: request.getfixturevalue("hundred")}[which]()
    with _opened(browser, path) as (page, errors):
        if which != "hundred":  # every run's cards on the page too (100 columns of them add time, no markup)
            page.check("#f-all")
        page.click(".runs-shown summary")
        page.click("#export-csv")  # the export panel and its download link
        page.locator("#topics-table summary").click()
        assert axe_violations(page) == [] and errors == []


@pytest.mark.parametrize("which", ["demo", "twenty"])
def test_keyboard_skip_link_one_stop_per_chart_and_snippet_buttons(browser, which, request):
    path = (
        request.getfixturevalue("demo_out") / "explore.html" if which == "demo" else request.getfixturevalue("twenty")
    )
    runs = len(page_data(path)["runs"])
    with _opened(browser, path) as (page, errors):
        assert page.locator("main").count() == 1
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.className") == "skip"
        page.keyboard.press("Enter")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == "prev"  # two key presses to the topic view
        charts = page.locator(".chart-area")
        focusable = page.evaluate(
            "Array.from(document.querySelectorAll('#charts *')).filter(e => e.tabIndex >= 0).length"
        )
        assert focusable == charts.count() == runs - 1
        chart = charts.nth(1)
        chart.focus()
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        picked = page.locator("#charts rect.focus").get_attribute("data-topic")
        page.keyboard.press("Enter")
        view = page.locator("#topic-view")
        assert view.get_attribute("data-topic") == picked
        assert view.get_attribute("data-compared") == chart.get_attribute("data-run")
        snippet = page.locator("button.snippet").first
        snippet.focus()
        page.keyboard.press("Enter")
        assert snippet.get_attribute("aria-expanded") == "true"
        page.keyboard.press("Space")
        assert snippet.get_attribute("aria-expanded") == "false" and errors == []


# --------------------------------------------------------------------------- Judged@5
def test_judged_at_5_has_one_definition_on_the_page(browser, tmp_path):
    """Olivier-Armstrong-run1: the column said 0.972 while the filter (the first five by rank)
    called seven topics fully judged that the column and the CSV put at 0.8."""
    from tests.experiments.test_explorer import page_data
    from touche.retrieval.experiments.explorer.build import write_explorer
    shared = require_shared()
    runs = [shared / "runs" / "task2-2022" / name for name in ("Asuna-run1.txt", "Olivier-Armstrong-run1.txt")]
    page = write_explorer(runs, {"relevance": shared / "qrels" / "task2-2022-relevance.qrels"}, tmp_path / "x.html")
    data = page_data(page)
    judged = "relevance:trec.Judged@5"
    olivier = "Olivier-Armstrong-run1"
    below = [t["id"] for t in data["topics"] if t["values"][olivier][judged] is not None
             and t["values"][olivier][judged] < 1]
    assert data["cells"][olivier][judged]["mean"] == pytest.approx(0.972)
    with _opened(browser, page) as (view, errors):
        view.select_option("#compared", olivier)
        view.fill("#f-judged", "1")
        view.press("#f-judged", "Enter")
        assert f"of {len(below)} (" in view.inner_text("#position") and errors == []
    assert {"8", "28", "53", "69", "74", "84", "88"} <= set(below)


TAU = ("Kendall τ@10", "τ_AP@10")


def _active(page) -> str | None:
    return page.evaluate(
        "document.activeElement && (document.activeElement.dataset.focus || document.activeElement.id)"
    )


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
