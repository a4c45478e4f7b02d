"""How user text is shown (irmetrics._text): quoted and cut in messages, on one
line without control characters, in strict JSON (issue 42)."""

import json
import math

import pytest

from irmetrics._text import MAX_QUOTED, one_line, quoted, strict_json
from irmetrics.errors import MAX_MESSAGE, InvalidArgumentError


def test_quoted_is_repr_up_to_the_limit():
    value = "a" * (MAX_QUOTED - 2)  # its repr: MAX_QUOTED characters with the quotes
    assert quoted(value) == repr(value)
    assert quoted("q\x1b]0;x\x07") == "'q\\x1b]0;x\\x07'"  # repr escapes control characters


def test_quoted_cuts_a_long_value_with_its_length():
    text = quoted("a" * 5_000_000 + "z")
    # the repr's first 80 characters (the quote and 79 a), "...", its last 20
    assert text == "'" + "a" * 79 + "..." + "a" * 18 + "z'" + " (5,000,001 characters)"
    assert quoted(b"b" * 1000).endswith("bbb' (1,000 bytes)")
    assert quoted(list(range(1000))).endswith("999] (4,890 characters)")  # len(repr)


def test_one_line_turns_each_run_of_control_characters_into_a_space():
    assert one_line("a\r\n\tb\x1b]0;t\x07c\x9b31md\x7f\u2028e") == "a b ]0;t c 31md e"
    assert one_line("plain é ü 字") == "plain é ü 字"


def test_strict_json_writes_non_finite_numbers_as_strings():
    data = {"a": math.inf, "b": [-math.inf, math.nan, 1.5], "c": (1e400, None, "x")}
    text = strict_json(data)

    def refuse(word):
        raise ValueError(word)

    assert json.loads(text, parse_constant=refuse) == {
        "a": "Infinity", "b": ["-Infinity", "NaN", 1.5], "c": ["Infinity", None, "x"]}
    assert [float(x) for x in ("Infinity", "-Infinity")] == [math.inf, -math.inf]


def test_an_error_message_is_cut_past_its_limit():
    message = "x" * (MAX_MESSAGE + 10_000)
    text = str(InvalidArgumentError(message))
    assert len(text) < MAX_MESSAGE + 50 and "(10,000 characters cut)" in text
    assert str(InvalidArgumentError("short")) == "short"
    with pytest.raises(InvalidArgumentError, match="short"):
        raise InvalidArgumentError("short")
