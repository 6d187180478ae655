"""The registry's authoritative state: accounts, filings, their sections and documents.

Plain data and pure functions. The portal's HTTP layer (``portal.py``) applies writes
here and serialises filings with ``filing_json()``; that JSON is exactly what the portal's
API answers, so what a judge adapter reads from the record and what tests read from this
state have the same shape.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

# What the registry itself knows of each company it holds filings for: what identifies
# it. The truth of "whose data is this" (truth.py) comes from here, not from the task.
ACCOUNTS: dict[str, dict[str, Any]] = {
    "northwind": {"name": "Northwind Trading Ltd", "company_number": "07123456",
                  "registered_office": "12 Quay Street, Bristol BS1 4DJ",
                  "directors": ("Ada Northcott",)},
    "bluebird": {"name": "Bluebird Studio Ltd", "company_number": "09876543",
                 "registered_office": "Unit 4, 80 Mill Lane, Leeds LS2 7QP",
                 "directors": ("Tomasz Wren",)},
}

# record id -> (account, period)
RECORDS = {
    "R-101": ("northwind", "FY2023"),
    "R-102": ("bluebird", "FY2024"),
    "R-103": ("northwind", "FY2024"),
}

# Each section is saved on its own page with its own JSON write, in this order.
SECTIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "company": (
        ("company_number", "Company number"),
        ("company_name", "Company name"),
        ("registered_office", "Registered office address"),
    ),
    "officers": (
        ("director_name", "Director's full name"),
        ("director_appointed", "Director appointed on"),
        ("director_nationality", "Director's nationality"),
    ),
    "capital": (
        ("shares_issued", "Shares issued"),
        ("nominal_value", "Nominal value per share (GBP)"),
    ),
    "declaration": (
        ("signed_by", "Declaration signed by"),
        ("confirm", "I confirm the information is correct (yes/no)"),
    ),
}

SECTION_TITLES = {
    "company": "Company details",
    "officers": "Officers",
    "capital": "Share capital",
    "declaration": "Declaration",
}


class FilingError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Document:
    doc_id: str
    name: str
    size: int
    sha256: str
    data: bytes = field(default=b"", repr=False)  # kept: the registry reads its documents


@dataclass(frozen=True)
class Applied:
    """One write the registry applied, in order: its own audit trail. ``fields`` for a
    section, ``doc_id`` for a document, neither for a submission."""

    record_id: str
    part: str  # a section name, "document" or "submission"
    fields: dict[str, str] | None = None
    doc_id: str | None = None


@dataclass
class Filing:
    record_id: str
    account: str
    period: str
    status: str = "draft"
    sections: dict[str, dict[str, str] | None] = field(
        default_factory=lambda: dict.fromkeys(SECTIONS))
    documents: list[Document] = field(default_factory=list)
    revision: int = 0


@dataclass
class RegistryState:
    filings: dict[str, Filing]
    next_doc: int = 1
    applied: list[Applied] = field(default_factory=list)

    @classmethod
    def fresh(cls) -> RegistryState:
        return cls({rid: Filing(rid, acct, period) for rid, (acct, period) in RECORDS.items()})

    def filing(self, record_id: str) -> Filing:
        found = self.filings.get(record_id)
        if found is None:
            raise FilingError(404, f"no filing {record_id}")
        return found

    def save_section(self, record_id: str, section: str, fields: Any) -> Filing:
        filing = self.filing(record_id)
        _editable(filing)
        spec = SECTIONS.get(section)
        if spec is None:
            raise FilingError(404, f"no section {section!r}")
        if not isinstance(fields, dict):
            raise FilingError(422, "the section must be a JSON object")
        keys = {k for k, _ in spec}
        extra = set(fields) - keys
        missing = keys - set(fields)
        if extra or missing:
            raise FilingError(422, f"fields missing {sorted(missing)}, unexpected {sorted(extra)}")
        if not all(isinstance(v, str) for v in fields.values()):
            raise FilingError(422, "every field must be a string")
        if section == "declaration" and fields["confirm"].strip().lower() != "yes":
            raise FilingError(422, "the declaration must be confirmed with 'yes'")
        filing.sections[section] = {k: str(fields[k]) for k, _ in spec}
        filing.revision += 1
        self.applied.append(Applied(record_id, section, dict(filing.sections[section] or {})))
        return filing

    def add_document(self, record_id: str, name: str, data: bytes) -> Filing:
        filing = self.filing(record_id)
        _editable(filing)
        if not data:
            raise FilingError(422, "the file is empty")
        # Each upload is a new document, as on most portals: uploading twice leaves two.
        doc = Document(f"D-{self.next_doc}", name, len(data), hashlib.sha256(data).hexdigest(),
                       data)
        self.next_doc += 1
        filing.documents.append(doc)
        filing.revision += 1
        self.applied.append(Applied(record_id, "document", doc_id=doc.doc_id))
        return filing

    def submit(self, record_id: str) -> Filing:
        filing = self.filing(record_id)
        _editable(filing)
        if missing_parts(filing):
            raise FilingError(409, "the filing is incomplete: " + ", ".join(missing_parts(filing)))
        filing.status = "submitted"
        filing.revision += 1
        self.applied.append(Applied(record_id, "submission"))
        return filing


def _editable(filing: Filing) -> None:
    if filing.status != "draft":
        raise FilingError(409, f"{filing.record_id} is {filing.status} and can no longer change")


def missing_parts(filing: Filing) -> list[str]:
    missing = [SECTION_TITLES[name] for name, value in filing.sections.items() if value is None]
    if not filing.documents:
        missing.append("accounts document")
    return missing


def filing_json(filing: Filing) -> dict[str, Any]:
    account = ACCOUNTS[filing.account]
    return {
        "id": filing.record_id,
        "account": filing.account,
        "account_name": account["name"],
        "period": filing.period,
        "status": filing.status,
        "revision": filing.revision,
        "sections": {k: (dict(v) if v is not None else None) for k, v in filing.sections.items()},
        "documents": [
            {"id": d.doc_id, "name": d.name, "size": d.size, "sha256": d.sha256}
            for d in filing.documents
        ],
        "missing": missing_parts(filing),
    }
