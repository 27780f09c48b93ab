"""``touche contact-sheet``: an image run as an HTML page of thumbnails with the text that earned them."""
from __future__ import annotations

from touche.api.tools import contact_sheet
from touche.cli.common import add_command, note
from touche.guard import Files


def add_parser(sub) -> None:
    p = add_command(sub, "contact-sheet", run,
                    "touche contact-sheet out/run.txt demo/images out/run.html --topics demo/images/topics.xml")
    p.add_argument("run", help="image run file (topic PRO|CON imageid rank score tag)")
    p.add_argument("collection", help="the image collection (a directory holding images/ or I??/ folders)")
    p.add_argument("out", help="HTML file to write")
    p.add_argument("--topics", help="topics XML (default: <collection>/topics.xml if present)")
    p.add_argument("-c", "--config", help="variant YAML whose image: settings explain the evidence")
    p.add_argument("--topic", action="append", help="show only this topic (repeatable)")


def run(args) -> int:
    path = contact_sheet(args.run, args.collection, args.out, topics=args.topics, config=args.config, topic=args.topic,
                         progress=True)
    note(args, f"wrote {path}")
    return 0


def files(args) -> Files:
    return Files.of(reads=[("run", args.run), ("image collection", args.collection), ("topics", args.topics),
                           ("variant", args.config)], writes=[("contact sheet", args.out)])
