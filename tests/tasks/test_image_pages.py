"""An image's pages (indexing/images.py): the DOM around the image on markup of our own (the
browser's XPath walked as libxml2 nests it, the near-text window and where it stops, the image's
own words, preview images named in the head) and the page files read within their budgets."""
from __future__ import annotations

import pytest
from lxml import html

from touche.errors import InputError
from touche.indexing import images as reader

DOM = """<html><head><title>T</title><script>var noise = "script text";</script>
<meta property="og:image" content="https://x.example/a.png"><meta property="og:title" content="Preview title">
<meta name="description" content="Preview description"></head><body>
<div><p>Far away text that is long enough to fall out of a short window.</p>
<p>Right before the figure.</p>
<figure><picture><source srcset="a.webp"><img src="https://x.example/a.png" alt="The alt words"
 aria-describedby="cap1"></picture><figcaption>Caption under it</figcaption></figure>
<p id="cap1">Described by this.</p><style>.x { color: red }</style><p>Right after the figure.</p>
</div></body></html>"""


def _tree():
    return html.document_fromstring(DOM).getroottree()


def test_xpath_walk_recovers_from_libxml2_nesting_and_rejects_wrong_paths():
    tree = _tree()
    path = "/HTML[1]/BODY[1]/DIV[1]/FIGURE[1]/PICTURE[1]/IMG[1]"
    assert tree.xpath(path.lower()) == []  # a plain XPath fails: libxml2 put <img> inside <source>
    assert reader.resolve_xpath(tree, path).get("alt") == "The alt words"
    assert reader.resolve_xpath(tree, "/HTML[1]/BODY[1]/DIV[1]/P[2]").text == "Right before the figure."
    assert reader.resolve_xpath(tree, "/HTML[1]/BODY[1]/DIV[1]/P[9]") is None
    assert reader.resolve_xpath(tree, "/BODY[1]") is None
    assert reader.resolve_xpath(tree, "not an xpath [") is None


def test_near_text_is_a_window_around_the_image_without_scripts_or_styles():
    tree = _tree()
    img = reader.resolve_xpath(tree, "/HTML[1]/BODY[1]/DIV[1]/FIGURE[1]/PICTURE[1]/IMG[1]")
    wide = reader.near_text(tree, img, chars=600)
    assert (
        wide.index("Right before the figure.") < wide.index("Caption under it") < wide.index("Right after the figure.")
    )
    assert "script text" not in wide and "color: red" not in wide and "Preview" not in wide
    narrow = reader.near_text(tree, img, chars=30)
    assert "Right before the figure." in narrow and "Far away" not in narrow
    assert "Caption under it" in narrow and "Right after" not in narrow


def test_alt_text_and_og_image_context():
    tree = _tree()
    near, alt = reader.image_context(tree, ["/HTML[1]/BODY[1]/DIV[1]/FIGURE[1]/PICTURE[1]/IMG[1]"])
    assert alt.split("\n") == ["The alt words", "Described by this.", "Caption under it"]
    near, alt = reader.image_context(tree, ["/HTML[1]/HEAD[1]/META[1]"])
    assert near == "Preview title Preview description" and alt == ""
    # no XPath resolves: the <img> naming the image's file is found by URL
    near, alt = reader.image_context(tree, ["/HTML[1]/BODY[1]/DIV[7]"], image_url="https://x.example/a.png")
    assert alt.startswith("The alt words")



def test_a_meta_element_names_a_preview_image_wherever_it_sits():
    """An XPath to a <meta> in the body (a schema.org image) is a preview too: the page's own summary
    describes it, not the text around the element."""
    tree = html.document_fromstring('<html><head><meta property="og:title" content="Preview title"></head><body><div>'
                                    '<p>Before.</p><meta itemprop="image" content="https://x.example/a.png"><p>After.'
                                    '</p></div></body></html>').getroottree()
    assert reader.image_context(tree, ["/HTML[1]/BODY[1]/DIV[1]/META[1]"]) == ("Preview title", "")


def test_near_text_holds_the_text_after_each_element():
    tree = html.document_fromstring('<html><body><p>Lead <b>bold</b> words<img src="a.png"> tail words <i>it</i> end'
                                    '</p></body></html>').getroottree()
    assert reader.near_text(tree, tree.getroot().find(".//img")) == "Lead bold words\ntail words it end"
    blocks = html.document_fromstring('<html><body><div><p>Before</p>after<img src="a.png">next<p>Below'
                                      '</p></div></body></html>').getroottree()
    assert reader.near_text(blocks, blocks.getroot().find(".//img")) == "Before\nafter\nnext\nBelow"


@pytest.mark.parametrize("src, image_url", [("/img/my%20pic.png", "https://x.example/my%20pic.png"),
                                            ("/img/my%20pic.png", "https://x.example/my pic.png"),
                                            ("/img/my pic.png?w=20", "https://x.example/my pic.png")])
def test_the_img_is_found_by_its_file_name_quoted_or_not(src, image_url):
    tree = html.document_fromstring(f'<html><body><img src="other.png" alt="no"><img data-src="{src}" alt="Mine">'
                                    '</body></html>').getroottree()
    assert reader.image_context(tree, [], image_url=image_url)[1] == "Mine"


def test_a_pages_title_is_its_collapsed_title_element(tmp_path):
    page = tmp_path / "P0123456789abcdef"
    (page / "snapshot").mkdir(parents=True)
    (page / "snapshot" / "dom.html").write_text("<html><head><title>  Voting\n at 16 &amp; over </title></head>"
                                                "<body><p>Text.</p></body></html>")
    (page / "page-url.txt").write_text("https://x.example/vote\n")
    read = reader.read_page(page)
    assert (read.id, read.url, read.title, read.near_text) == ("P0123456789abcdef", "https://x.example/vote",
                                                               "Voting at 16 & over", "")



def test_a_missing_xpath_step_is_looked_for_at_its_position_below():
    tree = html.document_fromstring("<html><body><div><section><p>one</p></section><section><p>two</p></section>"
                                    "</div></body></html>").getroottree()
    assert reader.resolve_xpath(tree, "/HTML[1]/BODY[1]/DIV[1]/P[2]").text == "two"  # no <p> child: descendants
    assert reader.resolve_xpath(tree, "/HTML[1]/BODY[1]/DIV[1]/P[1]").text == "one"
    assert reader.resolve_xpath(tree, "/HTML[1]/BODY[1]/DIV[1]/P[3]") is None


def test_a_step_without_a_position_is_the_first_of_its_tag():
    tree = html.document_fromstring("<html><body><p>one</p><p>two</p></body></html>").getroottree()
    assert reader.resolve_xpath(tree, "/HTML/BODY/P").text == "one"
    assert reader.resolve_xpath(tree, "/HTML/BODY/P[2]").text == "two"


def _window(body: str, chars: int) -> str:
    tree = html.document_fromstring(f"<html><body>{body}</body></html>").getroottree()
    return reader.near_text(tree, tree.getroot().find(".//img"), chars=chars)


def test_the_window_is_cut_at_word_boundaries_on_both_sides():
    """Ten characters each side: 'beta gamma' and 'ab cd efgh' are cut to their whole words."""
    assert _window("<p>alpha beta gamma</p><img src=a.png><p>ab cd efghij</p>", 10) == "gamma\nab cd"
    assert _window("<p>gamma</p><img src=a.png><p>ab</p>", 10) == "gamma\nab"  # shorter than the window: whole


@pytest.mark.parametrize("spaces, far", [(18, "far"), (19, "")])
def test_reading_after_the_image_stops_past_four_windows_of_text(spaces, far):
    """chars=5: the text after the image is read until it passes 4 × 5 = 20 characters, counted as
    they come (a block's line breaks and blank text too). With 18 spaces the first paragraph brings
    exactly 20 (two line breaks and the spaces) and the next is read; with 19 it brings 21 and
    reading stops there."""
    assert _window(f"<img src=a.png><p>{' ' * spaces}</p><p>far</p>", 5) == far


def test_an_images_context_holds_its_near_text_and_its_own_words():
    tree = html.document_fromstring(
        '<html><head><meta property="og:title" content="Preview title"><meta property="og:image:alt" '
        'content="Preview alt"></head><body><div title="not the image\'s"><p>Before it.</p><a href="x" '
        'title="Link title"><img src="https://x.example/mine.png" alt="Mine"></a><a href="y"><img '
        'src="https://x.example/other.png" alt="Other"></a><p>After it.</p></div></body></html>').getroottree()
    mine = "/HTML[1]/BODY[1]/DIV[1]/A[1]/IMG[1]"
    assert reader.image_context(tree, [mine]) == ("Before it.\nAfter it.", "Mine\nLink title")
    # an XPath that resolves wins over the image's URL, which names another <img>
    assert reader.image_context(tree, [mine], image_url="https://x.example/other.png")[1] == "Mine\nLink title"
    assert reader.image_context(tree, ["/HTML[1]/BODY[1]/DIV[1]/A[2]/IMG[1]"])[1] == "Other"  # a link without title
    assert reader.image_context(tree, ["/HTML[1]/HEAD[1]/META[1]"]) == ("Preview title", "Preview alt")


def test_a_page_file_is_read_to_its_budget_and_refused_past_it(tmp_path, monkeypatch):
    monkeypatch.setenv("TOUCHE_MAX_RECORD_MB", "1")
    page = tmp_path / "P0123456789abcdef"
    (page / "snapshot").mkdir(parents=True)
    url = page / "page-url.txt"
    url.write_text("h" * (2**20 - 1) + "\n")  # exactly the budget
    dom = page / "snapshot" / "dom.html"
    dom.write_bytes(b"<html><body><p>x</p>" + b" " * (2**20 - 34) + b"</body></html>")
    assert dom.stat().st_size == 2**20
    assert reader.read_page(page).url == "h" * (2**20 - 1)
    url.write_text("h" * 2**20 + "\n")
    with pytest.raises(InputError, match=r"page-url.txt: the file holds more than 1,048,576 characters"):
        reader.read_page(page)
    url.write_text("https://x.example/\n")
    dom.write_bytes(dom.read_bytes() + b" ")
    with pytest.raises(InputError, match=r"dom.html: the file holds more than 1,048,576 bytes"):
        reader.read_page(page)


def test_a_pages_text_is_its_first_100_000_characters(tmp_path):
    page = tmp_path / "P0123456789abcdef"
    (page / "snapshot").mkdir(parents=True)
    (page / "snapshot" / "text.txt").write_text("w" * 100_000 + "beyond")
    assert reader.read_page(page).text == "w" * 100_000
