"""The learned comparative stance (Task 2 2022): sentences by label and direction, negation,
objects named in the other order, a multi-word object; passages that name no object; the
cross-fitted passage model; the arithmetic against scikit-learn's; retraining gives the shipped
file; the five 2022 variants differ in stance."""
from __future__ import annotations

import gzip
import json
import re

import numpy as np
import pytest
import yaml

from tests.evaluation.test_experiment import T2
from tests.retrieval.test_preflight import _stance_model
from tests.shared import REPO, cli
from touche.config import load_variant
from touche.errors import ConfigError, InputError
from touche.paths import shared_touche_dir
from touche.retrieval.tasks.task2.features import ObjectMatcher
from touche.retrieval.tasks.task2.objects import ComparedObjects
from touche.retrieval.tasks.task2.stance import learned as stance_model
from touche.retrieval.tasks.task2.stance.learned import MODEL_FILE, comparative_sentences, load, oriented, topic_key
from touche.retrieval.tasks.task2.stance.registry import STANCE_MODELS
from touche.specs.task2 import StanceSpec

SHARED = shared_touche_dir()


@pytest.fixture(autouse=True)
def fresh_evidence_cache(monkeypatch):
    """Each test starts with an empty evidence cache: one test's passages never decide another's."""
    monkeypatch.setattr(stance_model, "_EVIDENCE", {})


def label(name: str, text: str, comp: ComparedObjects, key: str | None = None) -> str:
    return STANCE_MODELS[name].labeller(StanceSpec(model=name), MODEL_FILE)(text, comp, key)


def votes(text: str, objects: tuple[str, str]) -> np.ndarray:
    """Per sentence naming both: P(topic's first better), P(second better), P(no comparison)."""
    model = load()
    sentences, *_ = comparative_sentences(text, ObjectMatcher(ComparedObjects(objects, ())))
    return oriented(model.sentences.probabilities(sentences), sentences, model.sentences.classes)


@pytest.mark.parametrize("text, objects, side", [
    ("Python is much better than Java for beginners.", ("python", "java"), 0),    # BETTER, first named first
    ("Python is much better than Java for beginners.", ("java", "python"), 1),    # the topic's first named second
    ("Java is far worse than Python for beginners.", ("python", "java"), 0),      # WORSE of the first named
    ("Java is not better than Python for scripting.", ("python", "java"), 0),     # negation turns the cue
    ("Windows 10 is faster than macOS on old hardware.", ("windows 10", "macOS"), 0),  # a two-word object
    ("I prefer tea over coffee in the morning.", ("coffee", "tea"), 1),
    ("Both Python and Java are popular languages taught at universities.", ("python", "java"), 2),  # NONE
])
def test_sentences_by_label_and_direction(text, objects, side):
    found = votes(text, objects)
    assert len(found) == 1 and int(found[0].argmax()) == side, found


def test_the_placeholders_follow_the_sentence_not_the_topic():
    sentences, *_ = comparative_sentences("Java is slower than Python.",
                                          ObjectMatcher(ComparedObjects(("python", "java"), ())))
    assert sentences[0].masked == "OBJA is slower than OBJB" and not sentences[0].first_is_topic_first
    assert sentences[0].cues[stance_model.CUE_NAMES.index("negative_cues")] == 1
    assert sentences[0].cues[stance_model.CUE_NAMES.index("first_before_cue")] == 1


def test_our_inference_is_scikit_learns():
    """The shipped arithmetic (numpy, per passage: 0.14 ms against scikit-learn's 0.79 ms per call,
    docs/task2.md) gives scikit-learn's TF-IDF, probabilities and passage labels."""
    from scipy import sparse
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    data = json.loads(gzip.decompress(MODEL_FILE.read_bytes()))
    model = data["sentences"]
    classifier = load().sentences
    vectorizer = TfidfVectorizer(ngram_range=(1, 3), sublinear_tf=True, token_pattern=stance_model.TFIDF_TOKEN,
                                 vocabulary=model["tfidf"]["vocabulary"])
    vectorizer.fit(["x"])
    vectorizer.idf_ = np.asarray(model["tfidf"]["idf"])
    regression = LogisticRegression()
    regression.coef_, regression.intercept_ = np.asarray(model["coef"]), np.asarray(model["intercept"])
    regression.classes_ = np.asarray(model["classes"])
    comp = ObjectMatcher(ComparedObjects(("python", "java"), ()))
    texts = ["Python is much better than Java for beginners.", "I prefer Java over Python, not Python over Java.",
             "Both Python and Java are popular.", "Java is slower than Python but safer than Python."]
    for text in texts:
        sentences, *_ = comparative_sentences(text, comp)
        masked = vectorizer.transform([s.masked for s in sentences])
        ours = np.zeros(masked.shape)
        for row, s in enumerate(sentences):
            for index, value in classifier._tfidf(s.masked).items():
                ours[row, index] = value
        assert np.allclose(ours, masked.toarray())
        cues = (
            (np.stack([s.cues for s in sentences]) - classifier.cue_mean) / classifier.cue_scale * classifier.cue_weight
        )
        theirs = regression.predict_proba(sparse.hstack([masked, sparse.csr_matrix(cues)]).tocsr())
        assert np.allclose(classifier.probabilities(sentences), theirs, rtol=0, atol=1e-12)
    passages = data["passages"]["all"]
    scaled = LogisticRegression()
    scaled.coef_, scaled.intercept_ = np.asarray(passages["coef"]), np.asarray(passages["intercept"])
    scaled.classes_ = np.asarray(passages["classes"])
    features = np.random.default_rng(7).normal(size=(200, len(passages["features"])))
    standardised = (features - np.asarray(passages["mean"])) / np.asarray(passages["scale"])
    assert [load().passages.label(f) for f in features] == list(scaled.predict(standardised))


@pytest.mark.parametrize("text", ["", "   ", "Kontakt | Impressum | Datenschutz | Warenkorb",
                                  "Recipes for a quick dinner with rice and beans.",
                                  # not English, though it names both objects and compares them
                                  "Python ist viel besser als Java für Anfänger, weil die Syntax einfacher ist.",
                                  "Python es mucho mejor que Java para principiantes, porque la sintaxis es sencilla."])
def test_a_passage_naming_no_object_or_not_english_is_no_without_running_the_classifier(text, monkeypatch):
    model = load()
    monkeypatch.setattr(
        type(model.sentences),
        "probabilities",
        lambda self, sentences: (_ for _ in ()).throw(AssertionError("ran")) if sentences else np.zeros((0, 3)),
    )
    for name in ("learned", "combined"):
        assert label(name, text, ComparedObjects(("python", "java"), ())) == "NO"


def test_english_share_counts_function_words_of_two_letters_or_more():
    assert stance_model.english_share("Python is much better than Java for beginners.") > 0.3
    # "débutants" splits into "d" + "butants": the stray letter is no English function word
    assert stance_model.english_share("Python est bien meilleur que Java pour les débutants.") < 0.15
    assert stance_model.english_share("") == 0.0


def test_the_learned_decision_on_votes():
    comp = ComparedObjects(("python", "java"), ())
    assert label("learned", "Python is much better than Java for beginners.", comp) == "FIRST"
    assert label("learned", "Java is clearly superior to Python for large systems.", comp) == "SECOND"
    assert label("learned", "Python and Java both run on Linux. Java has a JIT.", comp) == "NO"


def test_a_topic_of_the_training_sample_gets_the_fold_model_that_never_saw_it():
    model = load()
    data = json.loads(gzip.decompress(MODEL_FILE.read_bytes()))["passages"]
    assert len(data["folds"]) == 5 and sum(len(f["topics"]) for f in data["folds"]) == 50
    key = data["folds"][2]["topics"][0]
    assert model.passage_model_for(key) is model.folds[2][1]
    assert model.passage_model_for(topic_key("Which is better, a cat or a dog?", ("cat", "dog"))) is model.passages
    assert "CompSent-19" in json.loads(gzip.decompress(MODEL_FILE.read_bytes()))["source"]


@pytest.mark.skipif(not (SHARED / "corpora" / "compsent19" / "train.csv").is_file(),
                    reason=f"CompSent-19 not found under {SHARED}")
def test_retraining_gives_the_shipped_file(tmp_path, monkeypatch):
    """The same model to the last rounded digit: the file keeps 6 significant digits, and the
    solver's last bits differ between CPUs (here at most 1e-6 apart), so a byte comparison held
    only on the machine that trained it."""
    from tests.shared import cli
    monkeypatch.chdir(tmp_path)
    code, text = cli("train-stance")
    assert code == 0, text
    retrained = json.loads(gzip.decompress((tmp_path / "stance_model.json.gz").read_bytes()))
    shipped = json.loads(gzip.decompress(MODEL_FILE.read_bytes()))

    def same(a, b, where="model"):
        if isinstance(a, dict):
            assert set(a) == set(b), where
            for key in a:
                same(a[key], b[key], f"{where}.{key}")
        elif isinstance(a, list) and a and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in a):
            assert np.allclose(a, b, rtol=1e-4, atol=2e-6), where
        elif isinstance(a, list):
            assert len(a) == len(b), where
            for i, (x, y) in enumerate(zip(a, b)):
                same(x, y, f"{where}[{i}]")
        else:
            assert a == b, where
    same(retrained, shipped)
    assert "micro-F1 0.863" in text and "combined, out of fold (topic-grouped 5-fold) 0.440" in text
    code, text = cli("train-stance", "-o", str(MODEL_FILE))
    assert code == 2 and "--replace-shipped" in text


def test_the_five_2022_variants_differ_in_stance():
    suite = yaml.safe_load((REPO / "configs" / "task2-stance" / "suite.yaml").read_text())
    models = [load_variant(REPO / "configs" / "task2-stance" / v).variant.task2.stance.model for v in suite["variants"]]
    assert set(models) == {"patterns", "learned", "combined"}
    primary = load_variant(REPO / "configs" / "task2-stance" / suite["primary"]).variant.task2.stance.model
    assert primary == "combined"


def test_a_stance_model_name_or_file_that_is_wrong_is_a_located_error(tmp_path):
    variant = tmp_path / "v.yaml"
    variant.write_text(yaml.safe_dump({"extends": str(REPO / "configs" / "task2-stance" / "base.yaml"), "tag": "t",
                                       "task2": {"stance": {"model": "magic"}}}))
    with pytest.raises(ConfigError, match="task2.stance.model"):
        load_variant(variant)


# --------------------------------------------------------------------------- train-stance inputs
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


def test_a_stance_model_missing_a_key_names_the_key(tmp_path):
    import gzip

    from touche.retrieval.tasks.task2.stance.learned import MODEL_FILE, load
    data = json.loads(gzip.decompress(MODEL_FILE.read_bytes()))
    del data["sentences"]["tfidf"]
    path = tmp_path / "model.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="its key sentences.tfidf is missing"):
        load(path)


@pytest.mark.parametrize("damage, named", [
    (lambda m: m["sentences"]["tfidf"].__setitem__("idf", [float("nan")] * len(m["sentences"]["tfidf"]["idf"])),
     "sentences.tfidf.idf"),
    (lambda m: m["sentences"]["cues"].__setitem__("scale", [0.0] * len(m["sentences"]["cues"]["scale"])),
     "sentences.cues.scale"),
    (lambda m: m["passages"]["all"]["coef"][0].__setitem__(0, 1e308), "passages.all.coef"),
    (lambda m: m["passages"]["folds"][2]["model"]["intercept"].__setitem__(1, True), "passages.folds[2].intercept"),
    (lambda m: m["sentences"]["tfidf"].__setitem__("ngram_range", [3, 1]), "ngram_range"),
])
def test_a_stance_model_with_values_out_of_range_is_refused(tmp_path, damage, named):
    """Every idf NaN ran without error and labelled 20 NO / 20 SECOND (stance F1 0.307, not 0.446)."""
    from touche.retrieval.tasks.task2.stance import learned as stance_model
    model = _stance_model()
    damage(model)
    path = tmp_path / "stance_model.json.gz"
    path.write_bytes(gzip.compress(json.dumps(model).encode()))
    with pytest.raises(InputError, match=re.escape(named)):
        stance_model.load(path)


def test_a_stance_model_with_a_huge_integer_or_a_vanishing_scale_is_refused_at_load(tmp_path):
    from touche.retrieval.tasks.task2.stance.learned import MODEL_FILE, load
    for where, value in ((("sentences", "intercept"), [10 ** 400, 0, 0]), (("passages", "all", "scale"), 1e-300)):
        data = json.loads(gzip.decompress(MODEL_FILE.read_bytes()))
        node = data
        for key in where[:-1]:
            node = node[key]
        node[where[-1]] = value if isinstance(value, list) else [value] + node[where[-1]][1:]
        path = tmp_path / f"{where[-1]}.json.gz"
        path.write_bytes(gzip.compress(json.dumps(data).encode()))
        with pytest.raises(InputError, match=r"no finite number a float can hold|can score"):
            load(path)
