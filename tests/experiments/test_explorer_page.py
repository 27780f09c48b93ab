"""The explorer page in a real browser (Debian's Chromium through Playwright), round 2: runs compared
before judgements exist, any run the baseline, runs hidden and sorted, topic filters, stance,
exports, no horizontal scroll with 20 runs at 1,400 px, and accessibility (axe-core, keyboard).

Pages (tests/explorer_pages.py): the demo's five runs (with and without qrels), a 20-run page
(synthetic runs over the demo's arguments, long names), a Task 2 2022 stance page (runs labelling
the demo passages, one predicting no stance), and for axe also image runs, the 16 official Task 2
2022 runs and 100 runs.
"""
from __future__ import annotations

import pytest

from tests.experiments.test_explorer import page_data, runs_of, topic_agreement
from tests.explorer_pages import QRELS, STANCE_QRELS, axe_violations
from tests.explorer_pages import opened as _opened
from tests.explorer_pages import overview_runs as _overview_runs
from touche.retrieval.evaluation.agreement import jaccard, rbo
from touche.retrieval.experiments.explorer.build import write_explorer
from touche.retrieval.experiments.explorer.export import EXPORTS, View, oriented
from touche.retrieval.experiments.explorer.export import tests as view_tests
from touche.retrieval.formats.gate import read_run


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


# --------------------------------------------------------------------------- 4: export
def test_the_pages_exports_follow_its_baseline(browser, twenty):
    data = page_data(twenty)
    with _opened(browser, twenty) as (page, errors):
        page.click("#export-markdown")
        assert page.input_value("#export-text") == EXPORTS["markdown"](data)
        page.select_option("#baseline", data["runs"][3])
        page.click("#export-latex")
        latex = page.input_value("#export-text")
        assert latex == EXPORTS["latex"](data, View(data["runs"][3], tuple(data["runs"]), data["correction"]))
        assert "\\toprule" in latex and "\\textbf{" in latex and "(baseline)" in latex
        page.click("#export-csv")
        assert page.input_value("#export-text").startswith("run,query_id,measure,value\n")
        assert page.get_attribute("#export-download", "download") == "explore-per-topic.csv"


def test_exports_from_the_command_line_with_the_test_and_correction_chosen(demo_out, tmp_path):
    from tests.shared import cli
    runs = [str(p) for p in runs_of(demo_out)]
    qrels = [f"--qrels=relevance={QRELS['relevance']}"]
    outputs = {k: tmp_path / f"o.{k}" for k in ("md", "tex", "csv")}
    code, text = cli("explore", *runs, *qrels, "--test", "t", "--correction", "bonferroni", "-o",
                     str(tmp_path / "p.html"),
                     "--markdown", str(outputs["md"]), "--latex", str(outputs["tex"]), "--csv", str(outputs["csv"]))
    assert code == 0, text
    data = page_data(tmp_path / "p.html")
    assert outputs["md"].read_text() == EXPORTS["markdown"](data)
    assert outputs["tex"].read_text() == EXPORTS["latex"](data)
    assert outputs["csv"].read_text() == EXPORTS["csv"](data)
    assert "paired t-test, Bonferroni correction" in outputs["md"].read_text()
    from scipy import stats

    from touche.retrieval.evaluation.measures import evaluate_rows_per_topic
    base, other = (evaluate_rows_per_topic(read_run(r), QRELS["relevance"], ["touche.nDCG@5"])["touche.nDCG@5"]
                   for r in runs[:2])
    common = sorted(set(base) & set(other))
    p = stats.ttest_rel([other[t] for t in common], [base[t] for t in common]).pvalue
    tested = view_tests(data, View.default(data))["relevance:touche.nDCG@5"][data["runs"][1]]
    assert tested.p == pytest.approx(p, abs=1e-6) and tested.p_corrected == pytest.approx(min(1, 4 * p), abs=1e-6)
    rows = outputs["csv"].read_text().splitlines()
    assert f"{data['runs'][0]},1,relevance:touche.nDCG@5," in "\n".join(rows)
    from touche.errors import ToucheError
    with pytest.raises(ToucheError, match="unknown significance test 'sign'; use one of randomization, t, wilcoxon"):
        write_explorer(runs, QRELS, tmp_path / "q.html", test="sign")
    assert not (tmp_path / "q.html").exists()


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


@pytest.mark.parametrize("ci, outcome", [({"CI": "true"}, "failed"), ({"CI": "1"}, "failed"), ({}, "skipped"),
                                         ({"CI": ""}, "skipped"), ({"CI": "false"}, "skipped")])
def test_a_missing_browser_fails_in_ci_and_skips_elsewhere(ci, outcome):
    """The exports are written twice (Python, the page's script) and held equal only here: in CI
    (which installs Chromium through run_tests.sh) a missing browser must fail, not skip."""
    from tests.shared import missing_tool
    with pytest.raises(BaseException) as raised:
        missing_tool("chromium not installed", environ=ci)
    assert type(raised.value).__name__ == {"failed": "Failed", "skipped": "Skipped"}[outcome]
    assert "chromium not installed" in str(raised.value)
