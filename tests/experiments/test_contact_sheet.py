"""The contact sheet of an image run: its HTML (cards, evidence, marks) and how it looks in a real
headless browser (Debian's chromium), checked on a screenshot."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.shared import REPO, cli
from touche.errors import InputError
from touche.retrieval.experiments.contact_sheet import thumbnail_data_uri, write_contact_sheet

DEMO = REPO / "demo" / "images"
PRO_COLOUR = (230, 0, 230)   # magenta pictures are the PRO side of our test run
CON_COLOUR = (0, 200, 230)   # cyan pictures the CON side
THUMB = 180                  # THUMBNAIL_PIXELS: a 360 x 180 picture becomes 180 x 90


def _write_image(root: Path, image_id: str, colour: tuple[int, int, int], words: str) -> None:
    folder = root / "images" / image_id[:3] / image_id
    snapshot = folder / "pages" / ("P" + image_id[1:]) / "snapshot"
    snapshot.mkdir(parents=True)
    Image.new("RGB", (360, 180), colour).save(folder / "image.png")
    (folder / "image-url.txt").write_text(f"https://pictures.example/{image_id}.png\n")
    (folder / "image-phash.txt").write_text(format(int(image_id[1:], 16), "064b") + "\n")
    page = snapshot.parent
    (page / "page-url.txt").write_text(f"https://pages.example/{image_id}\n")
    (page / "rankings.jsonl").write_text(json.dumps({"query": "zoos good", "topic": "1", "rank": 3}) + "\n")
    (snapshot / "dom.html").write_text(
        f"<html><head><title>Page of {image_id}</title></head><body><p>Before the picture.</p>"
        f'<figure><img src="https://pictures.example/{image_id}.png" alt="{words}"></figure>'
        "<p>After the picture.</p></body></html>")
    (snapshot / "image-xpath.txt").write_text("/HTML[1]/BODY[1]/FIGURE[1]/IMG[1]\n")
    (snapshot / "text.txt").write_text(f"Before the picture. {words} After the picture.\n")


@pytest.fixture(scope="module")
def sheet(tmp_path_factory) -> tuple[Path, Path]:
    """A 20-image collection of flat-coloured pictures, a run over it, and its contact sheet."""
    root = tmp_path_factory.mktemp("sheet")
    lines = []
    for n in range(20):
        image_id = f"I{n + 1:016x}"
        pro = n < 10
        words = "Zoos protect wonderful animals" if pro else "Stop zoos: cruel cages harm animals"
        _write_image(root, image_id, PRO_COLOUR if pro else CON_COLOUR, words)
        rank = n % 10 + 1
        lines.append(f"1 {'PRO' if pro else 'CON'} {image_id} {rank} {2.9 - rank / 10:.2f} sheet-test\n")
    (root / "topics.xml").write_text("<topics><topic><number>1</number><title>Are zoos good?</title></topic></topics>")
    run = root / "run.txt"
    run.write_text("".join(lines))
    out = write_contact_sheet(run, root, root / "sheet" / "contact.html")
    return root, out


def test_sheet_has_a_card_per_image_with_thumbnail_scores_and_evidence(sheet):
    root, out = sheet
    text = out.read_text()
    assert text.count('<div class="card ') == 20 and text.count("data:image/jpeg;base64,") == 20
    assert "Topic 1: Are zoos good?" in text
    assert text.index('class="stance PRO"') < text.index('class="stance CON"')
    assert "#1 · I0000000000000001" in text and "score 2.800" in text
    # the text that earned the image, with topic terms and cue words marked
    assert '<mark class="term">Zoos</mark> protect wonderful animals' in text
    assert '<mark class="con">Stop</mark>' in text and '<mark class="con">harm</mark>' in text
    assert "stance +" in text and "stance -" in text and "argumentative" in text
    assert "zoos good" in text  # the crawl query
    assert not list(out.parent.glob(".*.tmp"))  # written atomically


def test_an_image_shown_many_times_is_encoded_once(sheet, tmp_path):
    """A 50-image run once embedded 1,000 thumbnails (7.7 MB): each image is encoded once."""
    root, _ = sheet
    run = tmp_path / "run.txt"
    run.write_text("".join(f"{topic} {stance} I{n + (1 if stance == 'PRO' else 11):016x} {n + 1} {1 - n / 10:.2f} t\n"
                           for topic in ("1", "2", "3") for stance in ("PRO", "CON") for n in range(10)))
    text = write_contact_sheet(run, root, tmp_path / "sheet.html").read_text()
    assert text.count('<div class="card ') == 60
    assert text.count("data:image/jpeg;base64,") == 20
    assert text.count('class="thumb t-I0000000000000001"') == 3


def test_sheet_errors_and_topic_filter(sheet, tmp_path):
    root, _ = sheet
    with pytest.raises(InputError, match="no image rows"):
        write_contact_sheet(root / "run.txt", root, tmp_path / "x.html", topics=["9"])
    assert not (tmp_path / "x.html").exists()
    bad = tmp_path / "bad.txt"
    bad.write_text("1 MAYBE I0000000000000001 1 1.0 t\n")
    with pytest.raises(InputError, match="MAYBE"):
        write_contact_sheet(bad, root, tmp_path / "y.html")
    # an image the collection lacks gets a card saying so instead of failing the sheet
    missing = tmp_path / "missing.txt"
    missing.write_text((root / "run.txt").read_text().replace("I0000000000000001", "Iffffffffffffffff"))
    assert "not in the collection" in write_contact_sheet(missing, root, tmp_path / "z.html").read_text()
    assert thumbnail_data_uri(root / "topics.xml") is None


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    return None


def _count(pixels: np.ndarray, colour, tolerance=30) -> int:
    """Pixels within ``tolerance`` of ``colour`` in every channel (JPEG thumbnails shift a little)."""
    return int((np.abs(pixels - np.array(colour)) <= tolerance).all(axis=1).sum())


def test_sheet_renders_in_a_headless_browser(sheet, tmp_path):
    browser = _chromium()
    if browser is None:
        pytest.skip(
            "chromium not installed (Debian: apt-get install chromium); scripts/ensure_env.sh installs it as root"
        )
    _, out = sheet
    shot = tmp_path / "sheet.png"
    profile = tempfile.mkdtemp(prefix="touche-chromium-")
    try:
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        "--hide-scrollbars", f"--user-data-dir={profile}", "--window-size=1300,900",
                        f"--screenshot={shot}", out.as_uri()],
                       capture_output=True, timeout=120, check=False, env={**os.environ, "HOME": profile})
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    assert shot.is_file(), "chromium wrote no screenshot"
    with Image.open(shot) as image:
        assert image.size == (1300, 900)
        pixels = np.asarray(image.convert("RGB"), dtype=int).reshape(-1, 3)
    # Every PRO thumbnail is a 180 x 90 magenta block: all ten, laid out in two rows of five,
    # are on screen; CON thumbnails start below them (at least the first row shows).
    magenta, cyan = _count(pixels, PRO_COLOUR), _count(pixels, CON_COLOUR)
    assert magenta >= 0.9 * 10 * THUMB * THUMB // 2, magenta
    assert cyan >= 0.9 * 5 * THUMB * THUMB // 2 or cyan > 0, cyan
    # the PRO label (#1b7f3b) is drawn, the page is not blank
    assert _count(pixels, (0x1B, 0x7F, 0x3B), 12) > 500
    assert len({tuple(p) for p in pixels[::97]}) > 50
    if os.environ.get("TOUCHE_KEEP_SCREENSHOT"):  # to look at it: TOUCHE_KEEP_SCREENSHOT=/tmp/sheet.png
        shutil.copy(shot, os.environ["TOUCHE_KEEP_SCREENSHOT"])


def test_a_snippet_without_a_topic_term_is_the_flattened_beginning_whatever_the_whitespace():
    """The snippet of a text naming no topic term is cut from a prefix, not the whole flattened
    text: it must equal the beginning of the flattened text exactly."""
    import random
    import string

    from touche.retrieval.experiments.contact_sheet import snippet
    rng = random.Random(1)
    for chars in (50, 220, 320):
        for _ in range(500):
            text = "".join(
                rng.choice(string.ascii_lowercase[:6] + "  \n\t\u2003\r") for _ in range(rng.randint(0, 4000))
            )
            flat = " ".join(text.split())
            assert snippet(text, frozenset({"zzzzz"}), chars) == (flat if len(flat) <= chars else flat[:chars] + " …")


def test_the_contact_sheet_refuses_image_ids_that_leave_the_collection(tmp_path):
    run = tmp_path / "run.txt"
    lines = [f"1 {stance} I{k:015x}a {r} {10 - r} t" for stance, base in (("PRO", 0), ("CON", 10))
             for r, k in enumerate(range(base, base + 10), 1)]
    lines[0] = "1 PRO ../../../etc 1 10 t"
    run.write_text("\n".join(lines) + "\n")
    code, text = cli("contact-sheet", str(run), str(REPO / "demo" / "images"), str(tmp_path / "sheet.html"))
    assert code == 2 and "image id '../../../etc' is not 'I' followed by 16 hex digits" in text
    assert not (tmp_path / "sheet.html").exists()
