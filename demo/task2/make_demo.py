"""Writes the Task 2 demo collection (our own text) in the official formats:

* ``clueweb12/ClueWeb12_00/0000wb/0000wb-0N.warc.gz``: web pages as WARC/1.0 records with
  ``WARC-TREC-ID`` (ClueWeb12's layout), ``topics.xml`` (2020/21 style: titles, no objects),
  ``qrels-relevance.txt`` and ``qrels-quality.txt``;
* ``passages.jsonl`` (2022 schema ``{"id", "contents", "chatNoirUrl"}``, ids ``<page>___n``),
  ``topics-passages.xml`` (with ``<objects>``) and ``qrels-passages-{relevance,quality,stance}.txt``.

Run ``python demo/task2/make_demo.py`` to regenerate; the output is deterministic.
"""
from __future__ import annotations

import html
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from touche.indexing.clueweb import write_warc  # noqa: E402

TOPICS = [
    ("1", "Which is better for commuting, a bicycle or a car?", ("bicycle", "car")),
    ("2", "Is tea healthier than coffee?", ("tea", "coffee")),
    ("3", "Should I learn Java or Python first?", ("Java", "Python")),
    ("4", "What is better for a kitchen floor, tile or wood?", ("tile", "wood")),
]

# (topic, relevance, quality, stance toward the first object, title, paragraphs)
PAGES = [
    ("1", 2, 2, "FIRST", "Why I commute by bicycle instead of by car", [
        "After five years of driving to work I switched to a bicycle, and I think the bicycle is the better "
        "choice for most city commutes.",
        "A bicycle is cheaper than a car: there is no fuel, no parking fee and the repairs cost little. In "
        "heavy traffic the bicycle is often faster than the car, because you pass the queues.",
        "The car is more comfortable in the rain, however, and it carries children and shopping. Still, for a "
        "ride of under ten kilometres I recommend the bicycle, since it also keeps you fit."]),
    ("1", 2, 1, "SECOND", "Car or bike to work? The car wins for long distances", [
        "For a commute of forty kilometres the car is clearly better than a bicycle. A car protects you from "
        "the weather and you arrive at work without sweating.",
        "Cycling is slower than driving on open roads, and a bicycle is less safe next to fast traffic. If your "
        "office has no showers, the car is the practical choice."]),
    ("1", 1, 2, "NEUTRAL", "Bicycle versus car: comparing costs, time and health", [
        "Both the bicycle and the car have advantages. The bicycle costs less and improves health, while the "
        "car is faster over long distances and works in every weather.",
        "Which one is better depends on the distance, the weather and the roads in your city. Many people "
        "combine both: the bicycle in summer and the car in winter."]),
    ("1", 0, 1, "NO", "How to fix a flat bicycle tyre", [
        "To fix a flat tyre on your bicycle, remove the wheel, take out the tube and find the hole.",
        "Patch the hole, put the tube back and pump the tyre to the pressure printed on its side."]),
    ("1", 0, 0, "NO", "Bicycle Car Shop | Bicycle Deals | Car Deals", [
        "Bicycle Car Bicycle Car Home | Bicycle Sale | Car Sale | Cheap Bicycle | Cheap Car | Bicycle Parts "
        "Car Parts | Login | Cart | Copyright Bicycle Car Shop"]),
    ("2", 2, 2, "FIRST", "Tea or coffee: why tea is the healthier habit", [
        "I switched from coffee to tea last year and I believe tea is the healthier drink for most people.",
        "Tea has less caffeine than coffee, so it is gentler on sleep and on the heart. Green tea also "
        "contains antioxidants, and studies suggest that it may lower blood pressure.",
        "Coffee is not bad, but three cups a day make many people nervous. Therefore I recommend tea."]),
    ("2", 2, 2, "SECOND", "Coffee is healthier than tea, say recent studies", [
        "Coffee has been linked to a lower risk of diabetes and liver disease, and several studies found "
        "coffee drinkers live longer than tea drinkers.",
        "Tea is weaker than coffee when it comes to these effects. So if you enjoy it, coffee is the better "
        "choice, although you should avoid drinking it late in the evening."]),
    ("2", 1, 1, "NEUTRAL", "Tea vs coffee: a comparison of caffeine and nutrients", [
        "A cup of coffee contains about twice the caffeine of a cup of black tea. Both drinks contain "
        "antioxidants and both have few calories without milk and sugar.",
        "Neither tea nor coffee is clearly healthier; it depends on how much you drink and how you react to "
        "caffeine."]),
    ("2", 0, 1, "NO", "The history of tea in England", [
        "Tea arrived in England in the seventeenth century and soon became a national habit.",
        "The afternoon tea was made popular by a duchess who felt hungry between lunch and dinner."]),
    ("2", 0, 0, "NO", "Tea Coffee Store - Tea Coffee Cups - Buy Tea - Buy Coffee", [
        "Tea Coffee Tea Coffee | Home | Tea Shop | Coffee Shop | Best Tea | Best Coffee | Discount Coffee | "
        "Discount Tea | Subscribe | Login | Copyright Tea Coffee Store"]),
    ("3", 2, 2, "SECOND", "Learn Python first, then Java", [
        "If you have never programmed, I think Python is the better first language. Python code is shorter "
        "and easier to read than Java code, so you spend your time on ideas rather than on syntax.",
        "Java forces you to learn classes and types from the first day, which is harder for beginners. Once "
        "you know Python, learning Java later is easy."]),
    ("3", 2, 1, "FIRST", "Why Java is the better first programming language", [
        "Java teaches discipline. Because Java is statically typed, the compiler catches many mistakes that "
        "Python only reveals when the program runs.",
        "Java is also faster than Python and it is used in many large companies. In my opinion Java is better "
        "for a student who wants a solid foundation."]),
    ("3", 1, 2, "NEUTRAL", "Java and Python compared for beginners", [
        "Java and Python are both popular and both have large communities. Python is simpler to start with, "
        "while Java is more common in big enterprise systems.",
        "Which one you should learn first depends on your goals: data analysis points to Python, Android "
        "apps point to Java."]),
    ("3", 0, 1, "NO", "Installing Java on Windows", [
        "Download the installer, run it and set the JAVA_HOME variable to the installation folder.",
        "Open a new terminal and type java -version to check the installation."]),
    ("4", 2, 2, "FIRST", "Tile is the better kitchen floor", [
        "We replaced the wood floor in our kitchen with tile, and I would never go back. Tile is more durable "
        "than wood and water does not damage it.",
        "Wood is warmer under your feet, however spilled water and dropped pans leave marks on it. For a "
        "kitchen, tile is the better choice because it is easier to clean."]),
    ("4", 2, 1, "SECOND", "Wood floors in the kitchen: better than tile", [
        "A wood floor makes a kitchen feel warm, and it is softer than tile when you stand for hours. Dropped "
        "glasses often survive on wood but shatter on tile.",
        "Modern sealed wood resists water well, so I think wood is better than tile for a family kitchen."]),
    ("4", 1, 1, "NEUTRAL", "Kitchen flooring: tile versus wood", [
        "Tile and wood both work in a kitchen. Tile resists water and wear, while wood is warmer and quieter.",
        "The difference in price is small; choose by the look you want and how much care you will give it."]),
    ("4", 0, 0, "NO", "Tile Wood Flooring Outlet | Tile | Wood | Sale", [
        "Tile Wood Tile Wood | Home | Tile Sale | Wood Sale | Cheap Tile | Cheap Wood | Flooring | Cart | "
        "Login | Newsletter | Copyright Tile Wood Outlet"]),
    ("4", 0, 1, "NO", "How to grout tile", [
        "Mix the grout, spread it across the tile with a rubber float and press it into the joints.",
        "Wipe the surface with a damp sponge after twenty minutes and let it dry for a day."]),
]

# Pages about none of the topics: they make the collection statistics realistic.
UNRELATED = [
    ("The lighthouse keeper", ["The lighthouse keeper climbed the stairs every evening to light the lamp.",
                               "Ships passed safely along the rocky coast for a hundred years."]),
    ("Growing tomatoes", ["Tomatoes need sun, water and rich soil.", "Tie the plants to a stick as they grow."]),
    ("A short guide to chess openings", ["Control the centre, develop your pieces and castle early.",
                                         "The Italian game is a good opening for beginners."]),
]

NAVIGATION = ("<nav><ul><li><a href='/'>Home</a></li><li><a href='/about'>About</a></li>"
              "<li><a href='/contact'>Contact</a></li></ul></nav>")
FOOTER = "<footer><p>Copyright 2012 Example Site. All rights reserved.</p></footer>"


def page_html(title: str, paragraphs: list[str]) -> bytes:
    body = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title></head>"
            f"<body>{NAVIGATION}<article><h1>{html.escape(title)}</h1>{body}</article>{FOOTER}</body></html>"
            ).encode("utf-8")


def topics_xml(with_objects: bool) -> str:
    out = ["<topics>"]
    for number, title, objects in TOPICS:
        out.append("<topic>")
        out.append(f"<number>{number}</number>")
        out.append(f"<title>{html.escape(title)}</title>")
        if with_objects:
            out.append(f"<objects>{', '.join(objects)}</objects>")
            out.append(f"<description>A user wants to decide between {objects[0]} and {objects[1]}.</description>")
        out.append("</topic>")
    out.append("</topics>")
    return "\n".join(out) + "\n"


def main() -> None:
    pages = []
    for i, (topic, rel, qual, stance, title, paragraphs) in enumerate(PAGES):
        pages.append((f"clueweb12-0000wb-{i % 3:02d}-{i:05d}", topic, rel, qual, stance, title, paragraphs))
    for j, (title, paragraphs) in enumerate(UNRELATED, len(PAGES)):
        pages.append((f"clueweb12-0000wb-{j % 3:02d}-{j:05d}", None, None, None, None, title, paragraphs))

    for part in range(3):
        records = [(pid, f"http://www.example.org/{pid}", page_html(title, paragraphs))
                   for pid, _, _, _, _, title, paragraphs in pages if int(pid.split("-")[2]) == part]
        write_warc(HERE / "clueweb12" / "ClueWeb12_00" / "0000wb" / f"0000wb-{part:02d}.warc.gz", records)

    (HERE / "topics.xml").write_text(topics_xml(False), encoding="utf-8")
    (HERE / "topics-passages.xml").write_text(topics_xml(True), encoding="utf-8")
    judged = [p for p in pages if p[1] is not None]
    (HERE / "qrels-relevance.txt").write_text("".join(f"{t} 0 {pid} {r}\n" for pid, t, r, _, _, _, _ in judged))
    (HERE / "qrels-quality.txt").write_text("".join(f"{t} 0 {pid} {q}\n" for pid, t, _, q, _, _, _ in judged))

    # Passages: each page's paragraphs, numbered from 1 as in the 2022 collection.
    lines, rel_lines, qual_lines, stance_lines = [], [], [], []
    for pid, topic, rel, qual, stance, _title, paragraphs in pages:
        for n, paragraph in enumerate(paragraphs, 1):
            passage_id = f"{pid}___{n}"
            lines.append(json.dumps({"id": passage_id, "contents": paragraph,
                                     "chatNoirUrl": f"https://chatnoir.example/cache?uuid={pid}&index=cw12&raw&plain"}))
            if topic is not None:
                rel_lines.append(f"{topic} 0 {passage_id} {rel}\n")
                qual_lines.append(f"{topic} 0 {passage_id} {qual}\n")
                stance_lines.append(f"{topic} 0 {passage_id} {stance}\n")
    (HERE / "passages.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (HERE / "qrels-passages-relevance.txt").write_text("".join(rel_lines))
    (HERE / "qrels-passages-quality.txt").write_text("".join(qual_lines))
    (HERE / "qrels-passages-stance.txt").write_text("".join(stance_lines))
    print(f"wrote {len(pages)} pages, {len(lines)} passages, {len(TOPICS)} topics to {HERE}")


if __name__ == "__main__":
    main()
