"""The Python text layer (stemming/): stoplists read one way, the tokenisers, stems, sentiment."""
from __future__ import annotations

from touche.stemming import sentiment
from touche.stemming.sentences import web_sentence_boundaries, web_sentences
from touche.stemming.stems import porter, s_stem
from touche.stemming.stoplists import STOPLIST_DIR, read_stoplist, shipped
from touche.stemming.words import punctuated_tokens, query_words, technical_words, words


def test_a_stoplists_comment_header_is_not_stopwords(tmp_path):
    listed = tmp_path / "stop.txt"
    listed.write_text("# Licence: free for research and text retrieval\n#\nThe\n\n  of \nand\n", encoding="utf-8")
    assert read_stoplist(listed) == {"the", "of", "and"}


def test_the_smart_list_is_its_571_lines_without_the_header():
    smart = shipped("smart")
    assert len(smart) == 570  # 571 lines, "would" twice (see the file's header)
    assert {"a", "the", "would", "zero"} <= smart
    header_words = {"text", "research", "retrieval", "system", "licence", "cornell", "appendix"}
    assert not smart & header_words
    assert sum(1 for line in (STOPLIST_DIR / "smart.txt").read_text().splitlines() if line.startswith("#")) > 5


def test_a_comparative_aspect_keeps_words_of_the_smart_header():
    """The bug this layer fixed: the SMART header's words ('text', 'research', …) were Task 2 stopwords."""
    from touche.retrieval.tasks.task2.objects import extract_aspect, extract_objects

    title = "Which is better for text classification research, SVM or naive Bayes?"
    assert extract_aspect(title, extract_objects(title)) == ("text", "classification", "research")


def test_the_tokenisers_differ_where_their_texts_do():
    assert words("Don’t ban C++ or node.js, e-mail!") == ["don't", "ban", "c", "or", "node", "js", "e", "mail"]
    assert technical_words("Don’t ban C++ or node.js, e-mail!") == ["don", "t", "ban", "c++", "or", "node.js", "e-mail"]
    assert punctuated_tokens("Tea or coffee, for breakfast?") == ["tea", "or", "coffee", ",", "for", "breakfast", "?"]
    assert query_words("Should Teachers get tenure?") == ["Should", "Teachers", "get", "tenure"]


def test_stems():
    assert [porter(w) for w in ("laptops", "knives", "comparison",
                                "cheaper")] == ["laptop", "knive", "comparison", "cheaper"]
    assert [s_stem(w) for w in ("policies", "classes", "cats", "bus",
                                "glass")] == ["policy", "classe", "cat", "bus", "glass"]


def test_web_sentences_split_on_lines_and_bullets():
    text = "Tea is better. Coffee wakes you up!\nMenu • Home | About"
    assert web_sentences(text) == ["Tea is better.", "Coffee wakes you up!", "Menu", "Home", "About"]
    assert len(web_sentence_boundaries(text)) == 4


def test_one_vader_for_every_task():
    assert sentiment.vader() is sentiment.vader()
    assert (
        sentiment.compound("This is a wonderful, great idea.")
        > 0.5
        > -0.5
        > sentiment.compound("Terrible, awful idea.")
    )
