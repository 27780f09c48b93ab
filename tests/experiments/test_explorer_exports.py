"""The explorer's exports (Markdown, LaTeX, CSV) and the numbers they print: the page's exports of
every page kind are the command's byte for byte (written twice, in Python and in the page's
script, and held equal only in a browser: in CI a missing one fails), they follow the page's
baseline, hidden runs, order and correction, the command writes them with the test and correction
chosen, names a table would misread stay text in one row, and p digits never disagree with the
mark, saying the floor of a sampled test."""
from __future__ import annotations

import csv
import io

import pytest

from tests.experiments.test_explorer import _twenty_topic_runs, page_data, runs_of
from tests.explorer_pages import FORMULA_NAME, QRELS, TWO_LINE_NAME, opened, overview_runs
from tests.explorer_pages import opened as _opened
from touche.errors import ToucheError
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
from touche.retrieval.experiments.explorer.export import tests as view_tests
from touche.retrieval.formats.gate import read_run


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


PAGES = ["demo", "no_qrels_page", "twenty", "stance_page", "image_page", "official", "hundred"]


def _page(request, which):
    return request.getfixturevalue("demo_out") / "explore.html" if which == "demo" else request.getfixturevalue(which)


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
