"""Reading an event's method off Chrome's text: right when it says a name, else None."""

from __future__ import annotations

import orjson
from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.core.guard.event_text import event_method
from tests.support.examples import examples


def test_the_method_of_an_event_as_chrome_writes_it() -> None:
    text = orjson.dumps({"method": "Network.dataReceived",
                         "params": {"requestId": "1"}, "sessionId": "S"}).decode()
    assert event_method(text) == "Network.dataReceived"


def test_other_shapes_are_left_to_the_parser() -> None:
    assert event_method('{"id":3,"result":{}}') is None
    assert event_method('{"params":{},"method":"Network.dataReceived"}') is None
    assert event_method('{"method":"Network.data') is None
    assert event_method(' {"method":"Network.dataReceived"}') is None
    # An escape would make the written name differ from the parsed one.
    assert event_method('{"method":"Fetch.request\\u0050aused","params":{}}') is None


@examples(200)
@given(st.text(), st.dictionaries(st.text(), st.integers(-(2**63), 2**63 - 1), max_size=3))
def test_a_name_read_off_the_text_is_the_parsed_method(method: str,
                                                       params: dict[str, int]) -> None:
    text = orjson.dumps({"method": method, "params": params}).decode()
    read = event_method(text)
    assert read is None or read == orjson.loads(text)["method"]
    if '"' not in method and "\\" not in method and all(c >= " " for c in method):
        assert read == method
