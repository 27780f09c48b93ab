"""Reliability round 4 beyond sweeps: outputs that would replace inputs, an explorer page whose
data swallowed its script, model files found bad only after retrieval, training inputs that
crashed, a report folder found after the runs, measures named as sweeps print them, runs named
by numbers, stance F1 without a word on its missing p. Each failed on the code before this round
(docs/reliability.md)."""
from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import pandas as pd
import pytest
import yaml
from test_explorer import QRELS, _q0_run, page_data
from test_pipeline import cli

from touche.errors import ToucheError

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "demo"
T2 = DEMO / "task2"


# --------------------------------------------------------------------------- 8. explore -o INPUT
@pytest.mark.parametrize("victim", ["run", "qrels"])
def test_explore_never_writes_over_an_input(tmp_path, victim):
    run, other = _q0_run(tmp_path / "victim.txt"), _q0_run(tmp_path / "b.txt")
    qrels = tmp_path / "q.txt"
    qrels.write_text(QRELS["relevance"].read_text())
    target = run if victim == "run" else qrels
    before = target.read_bytes()
    code, text = cli("explore", str(run), str(other), "--qrels", str(qrels), "-o", str(target))
    assert code == 2 and f"would replace the {victim} it reads" in text
    assert target.read_bytes() == before


# --------------------------------------------------------------------------- 9. <!-- in the data
def test_markup_in_the_data_cannot_end_or_swallow_the_pages_script(tmp_path, browser):
    from touche.retrieval.experiments.explorer.build import write_explorer
    evil = "<!--<script>x</script><img src=x onerror=alert(1)>&"
    topics = tmp_path / "topics.xml"
    topics.write_text(
        DEMO.joinpath("topics.xml")
        .read_text()
        .replace("<title>", f"<title>{evil.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')} ", 1)
    )
    runs = [_q0_run(tmp_path / "a.txt"), _q0_run(tmp_path / "b.txt")]
    runs[1].write_text(runs[1].read_text().replace(" t\n", " u\n"))  # another run, not a byte copy
    page = write_explorer(runs, QRELS, tmp_path / "x.html", topics=topics, names=['<!--a"', "b</script>"])
    text = page.read_text()
    payload = text.split('id="explorer-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in payload and ">" not in payload  # nothing the HTML parser could read as markup
    data = page_data(page)
    assert data["runs"] == ['<!--a"', "b</script>"] and data["topics"][0]["title"].startswith(evil)
    assert '<span class="name">[1] &lt;!--a&#34;</span>' in text  # the engine escapes it
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        view = context.new_page()
        errors = []
        view.on("pageerror", lambda e: errors.append(str(e)))
        view.goto(page.as_uri())
        assert errors == [] and view.evaluate("document.querySelectorAll('img[src=x]').length") == 0
        assert view.inner_text("#topic-title").startswith("Topic 1")  # the application script ran
        assert view.inner_text("table.overview th.run >> nth=0") == '[1] <!--a" (baseline)'  # shown as text
    finally:
        context.close()


# --------------------------------------------------------------------------- 10. train-stance inputs
def _compsent_rows(labels: list[str]) -> str:
    header = "id,sentence_html,most_frequent_label\n"
    words = ("faster", "slower", "better", "cheaper")
    return header + "".join(f"{i},\"<span class='a'>python:[OBJECT_A]</span> is {words[i % 4]} than "
                            f"<span class='b'>ruby:[OBJECT_B]</span> in test {i}\",{label}\n"
                            for i, label in enumerate(labels))


@pytest.mark.parametrize("case, expected", [
    ("header", "holds no sentence"),
    ("one class", "all 4 sentences are labelled NONE"),
    ("latin-1", "not UTF-8 text"),
    ("no objects", "no judged passage reaches the passage model"),
])
def test_train_stance_names_the_bad_input(tmp_path, case, expected):
    compsent = tmp_path / "compsent"
    compsent.mkdir()
    labels = {"header": [], "one class": ["NONE"] * 4}.get(case, ["BETTER", "WORSE", "NONE", "BETTER"] * 10)
    text = _compsent_rows(labels)
    if case == "latin-1":
        (compsent / "train.csv").write_bytes(text.replace("faster", "fastér").encode("latin-1"))
    else:
        (compsent / "train.csv").write_text(text)
    topics = T2 / "topics-passages.xml"
    if case == "no objects":
        plain = tmp_path / "topics.xml"
        content = topics.read_text()
        import re
        content = re.sub(r"<objects>.*?</objects>", "", content)
        plain.write_text(re.sub(r"<title>.*?</title>", "<title>Tell me about it</title>", content))
        topics = plain
    code, out = cli("train-stance", "--compsent", str(compsent), "--passages", str(T2 / "passages.jsonl"),
                    "--qrels", str(T2 / "qrels-passages-stance.txt"), "--topics", str(topics),
                    "-o", str(tmp_path / "m.json.gz"))
    assert code == 2 and expected in out, out
    assert not (tmp_path / "m.json.gz").exists()


# --------------------------------------------------------------------------- 11. model files, checked first
def _stance_variant(tmp_path: Path, model_file: Path) -> Path:
    variant = tmp_path / "v.yaml"
    variant.write_text(yaml.safe_dump({"extends": str(REPO / "configs" / "task2-stance" / "3-rerank.yaml"),
                                       "tag": "bad-model",
                                       "task2": {"stance": {"model": "combined", "model_file": str(model_file)}}}))
    return variant


@pytest.mark.parametrize("damage", ["missing", "empty", "truncated gzip", "wrong sizes", "other features"])
def test_a_bad_stance_model_file_is_found_before_any_index_is_built(tmp_path, damage, monkeypatch):
    from touche.retrieval.tasks.task2.stance.learned import MODEL_FILE
    model = tmp_path / "model.json.gz"
    raw = gzip.decompress(MODEL_FILE.read_bytes())
    if damage == "empty":
        model.write_bytes(b"")
    elif damage == "truncated gzip":
        model.write_bytes(MODEL_FILE.read_bytes()[:1000])
    elif damage in ("wrong sizes", "other features"):
        data = json.loads(raw)
        if damage == "wrong sizes":
            data["sentences"]["cues"]["mean"] = data["sentences"]["cues"]["mean"][:-1]
        else:
            data["passages"]["all"]["features"] = list(reversed(data["passages"]["all"]["features"]))
        model.write_bytes(gzip.compress(json.dumps(data).encode()))
    variant = _stance_variant(tmp_path, model)
    monkeypatch.setenv("TOUCHE_INDEX_ROOT", str(tmp_path / "indexes"))
    code, out = cli("run", "-c", str(variant), "-i", str(T2 / "passages.jsonl"), "-t", str(T2 / "topics-passages.xml"),
                    "-o", str(tmp_path / "run.txt"), "--index-root", str(tmp_path / "indexes"))
    assert code == 2 and "Traceback" not in out and str(model) in out, out
    assert "task2.stance.model_file" in out
    assert not (tmp_path / "indexes").exists() and not (tmp_path / "run.txt").exists()


def test_a_missing_quality_model_is_found_before_run_all_runs_anything(tmp_path):
    base = REPO / "configs" / "task1" / "1-krovetz-smart-lmd2000-quality.yaml"
    variant = tmp_path / "q.yaml"
    variant.write_text(yaml.safe_dump({"extends": str(base), "tag": "q",
                                       "rerank": [{"name": "quality_model", "model": "nowhere.json"}]}))
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "topics.xml").write_text(DEMO.joinpath("topics.xml").read_text())
    (tmp_path / "in" / "args.json").write_text(DEMO.joinpath("args.me", "args-demo.json").read_text())
    code, out = cli("run-all", "-c", str(variant), "-i", str(tmp_path / "in"), "-o", str(tmp_path / "out"),
                    "--index-root", str(tmp_path / "indexes"))
    assert code == 2 and "quality model file does not exist" in out and "nowhere.json" in out, out
    assert not (tmp_path / "indexes").exists()


# --------------------------------------------------------------------------- 13. a folder where a report goes
def test_a_folder_in_the_explorers_place_is_said_before_the_runs(tmp_path):
    out = tmp_path / "out"
    (out / "explore.html").mkdir(parents=True)
    code, text = cli("run-all", "-o", str(out), "--index-root", str(tmp_path / "indexes"))
    assert code == 2 and "explorer page" in text and "run file" not in text, text
    assert sorted(p.name for p in out.iterdir()) == ["explore.html"]  # no run was written


# --------------------------------------------------------------------------- 14. smaller ones
def test_a_measure_named_with_its_qrels_is_accepted_and_scores_only_there(tmp_path):
    from touche.retrieval.evaluation.measures import evaluate
    run = _q0_run(tmp_path / "a.txt")
    scores = evaluate(run, QRELS, ["relevance:touche.nDCG@5"])
    assert list(scores) == ["relevance:touche.nDCG@5"]
    assert scores["relevance:touche.nDCG@5"] == evaluate(run, {"relevance": QRELS["relevance"]},
                                                         ["touche.nDCG@5"])["relevance:touche.nDCG@5"]
    code, text = cli("explore", str(run), str(_q0_run(tmp_path / "b.txt")), "--qrels",
                     f"relevance={QRELS['relevance']}",
                     "--measures", "relevance:touche.nDCG@5", "-o", str(tmp_path / "x.html"))
    assert code == 0, text
    with pytest.raises(ToucheError, match="do not apply"):
        evaluate(run, QRELS, ["stance:touche.nDCG@5"])


def test_runs_keyed_by_numbers_are_named_by_them(tmp_path):
    from touche import api
    a, b = _q0_run(tmp_path / "a.txt"), _q0_run(tmp_path / "b.txt")
    table = api.experiment({1: a, 2: b}, QRELS["relevance"], ["touche.nDCG@5"], baseline=1)
    assert set(table["baseline"]) == {"1"}
    assert math.isnan(table.set_index("run").loc["1", "delta"])


def test_an_experiment_tests_stance_f1_by_swapping_predictions_and_says_how():
    from touche.retrieval.evaluation.experiment import experiment
    qrels = {"stance": T2 / "qrels-passages-stance.txt"}
    judged = [line.split() for line in qrels["stance"].read_text().splitlines() if line.strip()]
    from touche.retrieval.formats.runfile import RunRow
    right = [RunRow(q, label, d, i + 1, 100.0 - i, "t") for i, (q, _, d, label) in enumerate(judged)]
    wrong = [RunRow(q, "NO" if label != "NO" else "FIRST", d, i + 1, 100.0 - i, "t")
             for i, (q, _, d, label) in enumerate(judged)]
    table = experiment({"right": right, "wrong": wrong}, qrels, ["stance.F1_macro", "stance.N"], baseline="right")
    assert any("stance.F1_macro: one value over all judged rows" in note and "swapping" in note
               for note in table.attrs["notes"])
    f1 = table[table["measure"] == "stance:stance.F1_macro"].set_index("run")
    assert f1.loc["right", "mean"] == 1.0 and f1.loc["wrong", "delta"] == pytest.approx(f1.loc["wrong", "mean"] - 1.0)
    topics = len({q for q, *_ in judged})
    # wrong on every topic: only "no swap" and "swap all" reach the difference, of 2^topics (exact)
    assert f1.loc["wrong", "p"] == pytest.approx(2 / 2 ** topics)
    assert f1.loc["wrong", "losses"] == topics and f1.loc["wrong", "wins"] == 0
    counts = table[table["measure"] == "stance:stance.N"].set_index("run")
    assert pd.isna(counts.loc["wrong", "p"])  # a count is not tested either


# --------------------------------------------------------------------------- found in review
def test_a_stance_variant_dumped_whole_loads_again():
    """Shard workers receive the whole variant (every default written out): a learned-stance
    variant was refused there for the pattern settings it does not read."""
    from touche.config import VariantSpec, load_variant
    for name in ("2-comparative-query", "3-rerank", "5-compquery-rerank"):
        variant = load_variant(REPO / "configs" / "task2-stance" / f"{name}.yaml").variant
        assert VariantSpec.model_validate_json(variant.model_dump_json()) == variant


def test_the_explorer_ranks_by_an_effectiveness_measure_not_by_judged(tmp_path):
    from touche.retrieval.experiments.explorer.build import write_explorer
    runs = [_q0_run(tmp_path / "a.txt"), _q0_run(tmp_path / "b.txt")]
    page = write_explorer(runs, {"relevance": QRELS["relevance"]}, tmp_path / "x.html",
                          measures=["trec.Judged@5", "trec.nDCG@5"])
    assert page_data(page)["main"] == "relevance:trec.nDCG@5"


def test_model_files_of_fused_variants_are_checked_first(tmp_path):
    from touche.config import load_variant
    from touche.retrieval.preflight import check_variant_files
    base = REPO / "configs" / "task1" / "base.yaml"
    (tmp_path / "b.yaml").write_text(yaml.safe_dump({"extends": str(base), "tag": "b",
                                                     "rerank": [{"name": "quality_model", "model": "missing.json"}]}))
    (tmp_path / "a.yaml").write_text(yaml.safe_dump({"extends": str(base), "tag": "a",
                                                     "rerank": [{"name": "rrf", "variants": ["b.yaml"]}]}))
    with pytest.raises(ToucheError, match="quality model file does not exist") as error:
        check_variant_files(load_variant(tmp_path / "a.yaml"))
    assert "b.yaml" in str(error.value)


@pytest.mark.parametrize("name", [":touche.nDCG@5", "a:b:touche.nDCG@5", "relevance:"])
def test_a_measure_with_an_empty_or_doubled_qrels_name_is_refused(name):
    from touche.retrieval.evaluation.registry import parse_measure
    with pytest.raises(ToucheError, match="QRELS-NAME:MEASURE"):
        parse_measure(name)
