"""Topic selections (``--topics-only``/``--topics-except``, a sweep set's ``topics_only``): what the
mutation run (``python -m bench.mutation``) found untested: the option a refusal names, a boolean
in a list, the size limit of one range at its edge, and ids that are not numbers in a message."""
from __future__ import annotations

import pytest

from touche.errors import ToucheError
from touche.retrieval.formats.selection import MAX_RANGE, TopicSelection, compact


@pytest.mark.parametrize("kind", ["only", "except"])
def test_a_refusal_names_the_option_it_came_from(kind):
    with pytest.raises(ToucheError, match=rf"^--topics-{kind}: 'x' is neither a topic number nor a range"):
        TopicSelection.parse("x", kind)
    with pytest.raises(ToucheError, match=r"^topics_only: 'x' is neither"):
        TopicSelection.parse("x", kind, where="topics_only")


@pytest.mark.parametrize("spec", [[51, True], [False], ["51", None], [51.0]])
def test_a_list_item_that_is_no_topic_number_is_refused(spec):
    """YAML reads ``yes`` as text (1.2 core schema), but a Python caller may pass True: it is not topic 1."""
    with pytest.raises(ToucheError, match=r"is no topic number"):
        TopicSelection.parse(spec)


def test_one_range_holds_at_most_max_range_topics_however_high_its_numbers():
    assert len(TopicSelection.parse(f"1-{MAX_RANGE}").numbers) == MAX_RANGE
    with pytest.raises(ToucheError, match=rf"holds {MAX_RANGE + 1:,} topics; at most {MAX_RANGE:,}"):
        TopicSelection.parse(f"1-{MAX_RANGE + 1}")
    high = TopicSelection.parse(f"{MAX_RANGE - 2}-{MAX_RANGE + 2}")  # five topics, high numbers
    assert len(high.numbers) == 5


def test_ids_that_are_not_numbers_follow_the_numbers_as_written():
    assert compact(["53", "51", "52", "x1", "60", "b"]) == "51-53, 60, b, x1"
    assert compact(["١٢", "7"]) == "7, ١٢"  # a digit other than 0-9 is no topic number
    with pytest.raises(ToucheError, match=r"^--topics-only 9: topic\(s\) 9 is not among them \(the topics of the runs: "
                                          r"1, x1\)"):
        TopicSelection.parse("9").check_against(["1", "x1"], "the runs")
