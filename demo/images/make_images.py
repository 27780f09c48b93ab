"""Generate the project's own tiny image collection for the Touché image task.

Writes, next to this script (the layout of a TIRA input directory):

* ``images/I<2 hex>/<image id>/``  the official collection layout: ``image.png``,
  ``image-url.txt``, ``image-phash.txt``, ``pages/<page id>/page-url.txt``, ``rankings.jsonl``,
  ``snapshot/{dom.html,text.txt,image-xpath.txt}``;
* ``topics.xml``   three topics in the Touché topic format;
* ``qrels.txt``    image judgments ``topic ONTOPIC|PRO|CON image 0|1``;
* ``README.md``    what is in it.

Why: tests, examples and ``run_all.sh --task image`` need an image collection that ships with
the repository, is small (< 1.5 MB) and carries no licence questions. Every picture is drawn
here with Pillow (its bundled font), every text written for this project. Labels follow from
how each image was made (its side, whether it argues at all), not from human assessment.

Images per topic: four PRO and four CON posters or charts, one on-topic photo-like picture
without text (on topic, argues nothing), one near-duplicate (the same poster smaller, crawled
from another page: the same or an almost the same perceptual hash). Four distractors on other subjects. Some pages
place the image in a ``<figure>`` with a caption, some only as the page's ``og:image`` preview,
one inside ``<picture><source>`` (the markup libxml2 nests differently from a browser).

Run ``python demo/images/make_images.py`` (needs Pillow and numpy/scipy from the project
environment); the output is the same on every run.
"""
from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np
from PIL import Image, ImageDraw, ImageFont
from scipy.fft import dctn

OUT = Path(__file__).resolve().parent
SITE = "https://images-demo.example.org"


@dataclass(frozen=True)
class Topic:
    number: str
    title: str
    description: str
    narrative: str
    queries: tuple[str, ...]


@dataclass(frozen=True)
class Picture:
    name: str                   # stable name: the ids are hashes of it
    topic: str                  # topic number, "" for distractors
    stance: str                 # PRO, CON, "" (argues nothing)
    kind: str                   # poster | chart | photo
    lines: tuple[str, ...]      # text drawn into the image
    caption: str                # alt text / figure caption
    near: str                   # the paragraph next to the image on its page
    page_title: str
    placement: str = "figure"   # figure | og | picture
    colour: tuple[int, int, int] = (40, 90, 160)
    bars: tuple[int, ...] = ()  # chart bar heights (0-100)
    duplicate_of: str = ""      # name of the picture this one re-encodes


TOPICS = (
    Topic("1", "Should city centres be car-free?",
          "A city council considers closing its old town to private cars. A resident wants to see images that argue "
          "for or against car-free city centres.",
          "Relevant images argue for or against banning cars from city centres: air quality, safety, noise, "
          "shops and access for disabled people or deliveries.",
          ("car free city centre", "ban cars city", "car ban downtown pros cons")),
    Topic("2", "Is homework good for pupils?",
          "Parents discuss whether schools should keep setting homework. A user looks for images that argue for or "
          "against homework.",
          "Relevant images argue that homework helps or harms pupils: practice, discipline, stress, free time, "
          "family life.",
          ("homework good for pupils", "homework pros cons", "too much homework")),
    Topic("3", "Should zoos be abolished?",
          "A user has seen animals pacing in small cages and wonders whether zoos should be closed for good.",
          "Relevant images argue for closing zoos (animal welfare, captivity) or for keeping them (conservation, "
          "education, breeding endangered species).",
          ("abolish zoos", "zoos animal welfare", "zoos conservation")),
)

PICTURES = (
    # Topic 1: banning cars from city centres.
    Picture("cars-pro-air", "1", "PRO", "chart", ("AIR POLLUTION AFTER", "THE CAR BAN", "NO2 DOWN 40%"),
            "Chart: air pollution fell 40 percent after the car ban", "Since the centre became car free the air is "
            "cleaner and healthier: nitrogen dioxide fell by 40 percent within a year.",
            "Car-free centre: cleaner air, say city scientists", colour=(30, 130, 70), bars=(90, 75, 54)),
    Picture("cars-pro-kids", "1", "PRO", "poster", ("CAR FREE STREETS", "ARE SAFE STREETS", "FOR OUR KIDS"),
            "Poster: car free streets are safe streets for our kids", "Parents support the car ban because children "
            "can walk to school safely. Fewer cars means fewer accidents.",
            "Parents support a car-free city centre", colour=(20, 110, 60)),
    Picture("cars-pro-yes", "1", "PRO", "poster", ("YES TO A", "CAR FREE", "CITY CENTRE"),
            "Campaign poster: yes to a car free city centre", "Join the campaign: a city centre without cars is "
            "quieter, greener and better for everyone.", "Campaign: yes to a car-free centre", placement="og",
            colour=(50, 140, 90)),
    Picture("cars-pro-noise", "1", "PRO", "chart", ("NOISE IN THE OLD TOWN", "BEFORE AND AFTER", "THE BAN"),
            "Bar chart of street noise before and after the ban", "Residents enjoy peaceful streets; noise levels "
            "dropped sharply after cars were banned.", "Quiet streets after the car ban",
            colour=(40, 120, 80), bars=(85, 40)),
    Picture("cars-con-shops", "1", "CON", "chart", ("SHOP SALES FELL 25%", "AFTER CARS WERE BANNED"),
            "Chart: shop sales fell 25 percent after cars were banned", "Shop owners oppose the ban: customers "
            "stay away and sales dropped sharply. Several shops have already closed.",
            "Shops suffer under the car ban", colour=(170, 50, 40), bars=(80, 60, 55)),
    Picture("cars-con-access", "1", "CON", "poster", ("STOP THE CAR BAN", "DISABLED DRIVERS", "NEED ACCESS"),
            "Protest poster: stop the car ban, disabled drivers need access", "Disabled residents are angry: "
            "the ban shuts them out of their own city. Stop this unfair ban.",
            "Protest against the car ban", colour=(180, 40, 40), placement="picture"),
    Picture("cars-con-jobs", "1", "CON", "poster", ("NO TO THE BAN", "DELIVERIES STUCK", "JOBS AT RISK"),
            "Poster: no to the ban, deliveries stuck, jobs at risk", "Delivery firms warn that the ban is a "
            "disaster: trucks are stuck outside the centre and jobs are at risk.", "Deliveries hit by the car ban",
            colour=(160, 60, 30)),
    Picture("cars-con-traffic", "1", "CON", "chart", ("TRAFFIC JAMS ON", "THE RING ROAD", "UP 30%"),
            "Chart: traffic jams on the ring road up 30 percent", "Critics say the ban only moves the problem: "
            "jams on the ring road got worse and commuters lose time.", "Car ban makes traffic worse elsewhere",
            colour=(150, 70, 50), bars=(50, 65, 80)),
    Picture("cars-photo", "1", "", "photo", (), "A street in the old town", "The old town on a Sunday morning.",
            "Old town streets", colour=(120, 120, 110)),
    Picture("cars-pro-kids-small", "1", "PRO", "poster", ("CAR FREE STREETS", "ARE SAFE STREETS", "FOR OUR KIDS"),
            "Car free streets poster", "Families back the plan to keep cars out of the centre.",
            "Families back car-free centre", colour=(20, 110, 60), duplicate_of="cars-pro-kids"),
    # Topic 2: homework.
    Picture("hw-pro-practice", "2", "PRO", "poster", ("PRACTICE MAKES", "PERFECT:", "HOMEWORK HELPS"),
            "Poster: practice makes perfect, homework helps", "Teachers agree that homework helps pupils practise "
            "and remember what they learned. It builds good habits.", "Why homework helps pupils learn",
            colour=(40, 90, 170)),
    Picture("hw-pro-grades", "2", "PRO", "chart", ("GRADES OF PUPILS", "WITH HOMEWORK", "UP 15%"),
            "Chart: grades of pupils with homework up 15 percent", "A study found better grades for pupils who did "
            "regular homework, a clear benefit for their learning.", "Study: homework improves grades",
            colour=(50, 80, 160), bars=(55, 70)),
    Picture("hw-pro-discipline", "2", "PRO", "poster", ("HOMEWORK BUILDS", "DISCIPLINE AND", "GOOD HABITS"),
            "Poster: homework builds discipline and good habits", "Homework teaches responsibility and good "
            "study habits that pupils need later.", "Homework teaches responsibility", placement="og",
            colour=(30, 70, 150)),
    Picture("hw-pro-parents", "2", "PRO", "poster", ("PARENTS SEE", "WHAT KIDS LEARN"),
            "Poster: parents see what kids learn", "Homework lets parents follow and support what their children "
            "learn at school.", "Homework connects parents and school", colour=(60, 100, 180)),
    Picture("hw-con-stress", "2", "CON", "chart", ("STRESS FROM", "HOMEWORK", "70% OF PUPILS"),
            "Chart: 70 percent of pupils feel stress from homework", "Too much homework causes stress and anxiety; "
            "most pupils say they feel exhausted and unhappy.", "Homework stress harms pupils",
            colour=(170, 60, 60), bars=(70, 30)),
    Picture("hw-con-play", "2", "CON", "poster", ("NO HOMEWORK!", "KIDS NEED", "TIME TO PLAY"),
            "Poster: no homework, kids need time to play", "Children lose their free time to play; homework steals "
            "childhood and hurts family life.", "Kids need play, not homework", colour=(190, 70, 50)),
    Picture("hw-con-sleep", "2", "CON", "poster", ("LESS SLEEP", "MORE WORRY:", "STOP HOMEWORK"),
            "Poster: less sleep, more worry, stop homework", "Pupils with hours of homework sleep less and worry "
            "more. Stop this harmful practice.", "Homework costs sleep", colour=(160, 50, 70)),
    Picture("hw-con-gap", "2", "CON", "chart", ("HOMEWORK WIDENS", "THE GAP BETWEEN", "RICH AND POOR"),
            "Chart: homework widens the gap between rich and poor", "Critics argue homework is unfair: pupils "
            "without help at home fall further behind.", "Homework and inequality",
            colour=(150, 60, 40), bars=(80, 35)),
    Picture("hw-photo", "2", "", "photo", (), "A desk with school books", "A desk in a pupil's room.",
            "A pupil's desk", colour=(110, 100, 90)),
    Picture("hw-con-play-small", "2", "CON", "poster", ("NO HOMEWORK!", "KIDS NEED", "TIME TO PLAY"),
            "No homework poster", "The poster from the parents' protest against homework.",
            "Parents protest against homework", colour=(190, 70, 50), duplicate_of="hw-con-play"),
    # Topic 3: abolishing zoos (a "remove something" topic: PRO speaks badly of zoos).
    Picture("zoo-pro-cages", "3", "PRO", "poster", ("ANIMALS SUFFER", "IN CAGES:", "CLOSE THE ZOOS"),
            "Poster: animals suffer in cages, close the zoos", "Captivity is cruel: animals suffer, pace in small "
            "cages and lose their natural lives. Zoos must close.", "Captive animals suffer",
            colour=(140, 40, 40)),
    Picture("zoo-pro-stress", "3", "PRO", "chart", ("ELEPHANTS IN ZOOS", "DIE YOUNGER"),
            "Chart: elephants in zoos die younger", "Zoo elephants live much shorter lives than wild ones, a sad "
            "result of stress and captivity.", "Zoo elephants die young", colour=(150, 50, 50), bars=(80, 35)),
    Picture("zoo-pro-wild", "3", "PRO", "poster", ("WILD ANIMALS", "ARE NOT", "ENTERTAINMENT"),
            "Poster: wild animals are not entertainment", "Keeping wild animals for entertainment is wrong and "
            "cruel. End the cruel trade.", "Animals are not entertainment", placement="og", colour=(130, 30, 50)),
    Picture("zoo-pro-prison", "3", "PRO", "poster", ("A ZOO IS", "A PRISON"),
            "Poster: a zoo is a prison", "Critics call zoos prisons where animals are bored, lonely and sick.",
            "Zoos as prisons", colour=(120, 40, 60)),
    Picture("zoo-con-species", "3", "CON", "chart", ("ZOOS SAVED 48", "SPECIES FROM", "EXTINCTION"),
            "Chart: zoos saved 48 species from extinction", "Zoos protect endangered species: breeding programmes "
            "saved dozens of species and helped them return to the wild.", "Zoos save endangered species",
            colour=(40, 120, 90), bars=(30, 60, 90)),
    Picture("zoo-con-learn", "3", "CON", "poster", ("KIDS LEARN TO", "LOVE AND PROTECT", "WILDLIFE"),
            "Poster: kids learn to love and protect wildlife", "Zoos inspire children to care for nature and "
            "support conservation; a visit is a great lesson.", "Zoos teach children about nature",
            colour=(30, 130, 100)),
    Picture("zoo-con-research", "3", "CON", "poster", ("ZOO RESEARCH", "HELPS ANIMALS", "IN THE WILD"),
            "Poster: zoo research helps animals in the wild", "Research in zoos improves veterinary care and "
            "helps protect wild populations.", "Zoo science helps wildlife", colour=(40, 140, 110)),
    Picture("zoo-con-rescue", "3", "CON", "poster", ("RESCUED ANIMALS", "FIND A SAFE HOME"),
            "Poster: rescued animals find a safe home", "Good zoos give injured and rescued animals a safe, caring "
            "home.", "Zoos rescue animals", colour=(50, 150, 90), placement="picture"),
    Picture("zoo-photo", "3", "", "photo", (), "Zoo entrance", "The entrance of the city zoo.", "The city zoo",
            colour=(100, 120, 100)),
    Picture("zoo-pro-cages-small", "3", "PRO", "poster", ("ANIMALS SUFFER", "IN CAGES:", "CLOSE THE ZOOS"),
            "Close the zoos poster", "Activists carried this poster at the march against zoos.",
            "March against zoos", colour=(140, 40, 40), duplicate_of="zoo-pro-cages"),
    # Distractors: other subjects, some sharing words with the topics.
    Picture("other-pizza", "", "", "poster", ("BEST PIZZA", "IN TOWN"), "Pizza advert", "Our pizza is the best "
            "in the city centre.", "Pizza in the city centre", colour=(200, 140, 40)),
    Picture("other-weather", "", "", "chart", ("RAIN THIS WEEK",), "Weather chart", "Rain is expected all week.",
            "Weather forecast", colour=(60, 60, 140), bars=(20, 80, 50)),
    Picture("other-carwash", "", "", "poster", ("CAR WASH", "OPEN SUNDAY"), "Car wash advert",
            "Our car wash is open on Sunday.", "Car wash", colour=(90, 90, 90)),
    Picture("other-library", "", "", "photo", (), "Library shelves", "The school library has new shelves.",
            "New library shelves", colour=(130, 110, 80)),
)


# ---------------------------------------------------------------------------- drawing
def draw(picture: Picture, scale: float = 1.0) -> Image.Image:
    width, height = int(360 * scale), int(220 * scale)
    image = Image.new("RGB", (width, height), (250, 248, 240))
    pen = ImageDraw.Draw(image)
    r, g, b = picture.colour
    if picture.kind == "photo":
        # Shapes without text: "a photo" to the OCR and to argumentativeness. Their layout comes
        # from the picture's name, so two photos never share a perceptual hash.
        seed = hashlib.sha256(picture.name.encode()).digest()
        for i in range(8):
            x0, y0 = seed[2 * i] / 255 * width * 0.8, seed[2 * i + 1] / 255 * height * 0.8
            x1, y1 = x0 + width * (0.1 + seed[16 + i] / 255 * 0.4), y0 + height * (0.1 + seed[24 + i] / 255 * 0.5)
            shade = (min(255, r + 18 * i), min(255, g + 12 * i), min(255, b + 8 * i))
            shape = pen.ellipse if seed[i] % 2 else pen.rectangle
            shape([int(x0), int(y0), int(x1), int(y1)], fill=shade)
        return image.quantize(colors=16)
    pen.rectangle([0, 0, width, int(height * 0.12)], fill=(r, g, b))
    font = ImageFont.load_default(size=max(10, int(24 * scale)))
    y = int(height * 0.18)
    for line in picture.lines:
        pen.text((int(width * 0.06), y), line, fill=(20, 20, 20), font=font)
        y += int(30 * scale)
    if picture.bars:
        base = height - int(12 * scale)
        bar_width = int(width * 0.8 / (2 * len(picture.bars)))
        for i, value in enumerate(picture.bars):
            x = int(width * 0.1) + i * 2 * bar_width
            pen.rectangle([x, base - int(value * 0.5 * scale), x + bar_width, base], fill=(r, g, b))
    return image.quantize(colors=16)


def phash(image: Image.Image) -> str:
    """64-bit DCT perceptual hash as 0/1 characters (the imagehash library's pHash: 32×32
    greyscale, 2-D DCT, the 8×8 lowest frequencies against their median)."""
    pixels = np.asarray(image.convert("L").resize((32, 32), Image.Resampling.LANCZOS), dtype=float)
    low = dctn(pixels, norm="ortho")[:8, :8]
    return "".join("1" if v > np.median(low) else "0" for v in low.flatten())


def ident(prefix: str, name: str) -> str:
    return prefix + hashlib.sha256(f"touche-demo-images:{name}".encode()).hexdigest()[:16]


# ---------------------------------------------------------------------------- pages
PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="description" content="{near}">
<meta property="og:title" content="{title}">
<meta property="og:image" content="{image_url}">
</head><body>
<header><nav><a href="/">Home</a> <a href="/news">News</a> <a href="/opinion">Opinion</a></nav></header>
<main><article>
<h1>{title}</h1>
<p>{intro}</p>
{figure}
<p>{near}</p>
</article></main>
<footer><p>Demo pages written for the Touché toolkit.</p></footer>
</body></html>
"""
INTRO = "This page was written for the toolkit's demo collection. It reports on a local debate."


def figure_markup(picture: Picture, image_url: str) -> tuple[str, str]:
    """(markup, the browser's XPath of the image)."""
    alt = escape(picture.caption, {'"': "&quot;"})
    if picture.placement == "og":
        return "", "/HTML[1]/HEAD[1]/META[4]"
    if picture.placement == "picture":
        return (f'<figure><picture><source type="image/webp" srcset="{image_url}.webp">'
                f'<img src="{image_url}" alt="{alt}"></picture><figcaption>{escape(picture.caption)}</figcaption>'
                "</figure>", "/HTML[1]/BODY[1]/MAIN[1]/ARTICLE[1]/FIGURE[1]/PICTURE[1]/IMG[1]")
    return (f'<figure><img src="{image_url}" alt="{alt}"><figcaption>{escape(picture.caption)}</figcaption></figure>',
            "/HTML[1]/BODY[1]/MAIN[1]/ARTICLE[1]/FIGURE[1]/IMG[1]")


def page_text(picture: Picture) -> str:
    return "\n\n".join(["Home News Opinion", picture.page_title, INTRO, picture.caption, picture.near,
                        "Demo pages written for the Touché toolkit."]) + "\n"


def write_image(picture: Picture, base: Path, rank: int) -> str:
    image_id = ident("I", picture.name)
    page_id = ident("P", picture.name)
    folder = base / image_id[:3] / image_id
    snapshot = folder / "pages" / page_id / "snapshot"
    snapshot.mkdir(parents=True)
    if picture.duplicate_of:
        original = next(p for p in PICTURES if p.name == picture.duplicate_of)
        image = draw(original).convert("RGB").resize((300, 183), Image.Resampling.LANCZOS).quantize(colors=16)
    else:
        image = draw(picture)
    image.save(folder / "image.png", optimize=True)
    image_url = f"{SITE}/media/{picture.name}.png"
    (folder / "image-url.txt").write_text(image_url + "\n")
    (folder / "image-phash.txt").write_text(phash(image) + "\n")
    page = folder / "pages" / page_id
    (page / "page-url.txt").write_text(f"{SITE}/articles/{picture.name}\n")
    topic = next((t for t in TOPICS if t.number == picture.topic), None)
    rankings = ([{"query": q, "topic": topic.number, "rank": rank + i} for i, q in enumerate(topic.queries[:2])]
                if topic else [])
    (page / "rankings.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rankings))
    markup, xpath = figure_markup(picture, image_url)
    (snapshot / "dom.html").write_text(PAGE.format(title=escape(picture.page_title), near=escape(picture.near),
                                                   image_url=image_url, intro=INTRO, figure=markup))
    (snapshot / "image-xpath.txt").write_text(xpath + "\n")
    (snapshot / "text.txt").write_text(page_text(picture))
    return image_id


def topics_xml() -> str:
    parts = ["<topics>"]
    for t in TOPICS:
        parts.append(f"  <topic>\n    <number>{t.number}</number>\n    <title>{escape(t.title)}</title>\n"
                     f"    <description>{escape(t.description)}</description>\n"
                     f"    <narrative>{escape(t.narrative)}</narrative>\n  </topic>")
    parts.append("</topics>\n")
    return "\n".join(parts)


def judgments(ids: dict[str, str]) -> list[str]:
    """Every image judged for every topic: on topic if made for it; PRO/CON if it argues that side."""
    lines = []
    for topic in TOPICS:
        for picture in PICTURES:
            on = picture.topic == topic.number
            image_id = ids[picture.name]
            lines.append(f"{topic.number} ONTOPIC {image_id} {int(on)}")
            lines.append(f"{topic.number} PRO {image_id} {int(on and picture.stance == 'PRO')}")
            lines.append(f"{topic.number} CON {image_id} {int(on and picture.stance == 'CON')}")
    return lines


README = """# Demo image collection
A tiny collection for the Touché image retrieval task (2022/2023 layout), made for this project:
{images} PNG images drawn with Pillow, their pages, three topics and judgments. Nothing is copied from
the Touché collection or any other source. Regenerate with `python demo/images/make_images.py`.

- `images/I<2 hex>/<image id>/`: the official layout (`image.png`, `image-url.txt`, `image-phash.txt`,
  `pages/<page id>/page-url.txt`, `rankings.jsonl`, `snapshot/dom.html`, `text.txt`, `image-xpath.txt`).
- `topics.xml`: 3 topics (car-free city centres, homework, abolishing zoos — a "remove something" topic,
  on which arguing PRO means speaking badly of zoos: the stance formula flips sentiment there).
- `qrels.txt`: every image judged for every topic (`topic ONTOPIC|PRO|CON image 0|1`); per topic 4 PRO and
  4 CON images, one on-topic picture without text that argues nothing, and one near-duplicate (a smaller copy
  of a poster from another page). Two of the copies have the same perceptual hash as their original, the third
  differs in 2 bits (collapsed with `image.duplicates.max_distance` >= 2); any two different pictures differ
  in at least 4 bits. {distractors} distractors on other subjects.
- Placement: most images sit in a `<figure>` with a caption; some are only the page's `og:image`
  (their XPath points into the head); two use `<picture><source>`, which lxml parses differently from a
  browser (the XPath walk has to recover).

Labels follow from how each image was made, not from human assessment. A topic has only 10 on-topic
images, so every run fills its 20 slots per topic with other images (see `retrieval/tasks/image/handlers.py`).
"""


def main() -> None:
    base = OUT / "images"
    if base.exists():
        shutil.rmtree(base)
    base.mkdir(parents=True)
    ids = {p.name: write_image(p, base, 1 + i % 9) for i, p in enumerate(PICTURES)}
    (OUT / "topics.xml").write_text(topics_xml())
    (OUT / "qrels.txt").write_text("\n".join(judgments(ids)) + "\n")
    (OUT / "README.md").write_text(README.format(images=len(PICTURES),
                                                 distractors=sum(1 for p in PICTURES if not p.topic)))
    size = sum(f.stat().st_size for f in OUT.rglob("*") if f.is_file())
    print(f"wrote {len(PICTURES)} images, {len(TOPICS)} topics to {OUT} ({size / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
