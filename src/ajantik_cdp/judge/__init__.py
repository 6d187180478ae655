"""``ajantik test judge``: verdicts from the record, not from the skill.

Adapters import what they need from here::

    from ajantik_cdp.judge import Claim, Damage, Held, Record, Report, Unreadable, cite
    from ajantik_cdp.judge import read_claim  # the shared claim reader
"""

from ajantik_cdp.judge.adapter_api import (
    Block,
    Claim,
    Damage,
    Exchange,
    Held,
    Record,
    Report,
    Unreadable,
    cite,
    read_claim,
    read_claims,
)

__all__ = ["Block", "Claim", "Damage", "Exchange", "Held", "Record", "Report", "Unreadable",
           "cite", "read_claim", "read_claims"]
