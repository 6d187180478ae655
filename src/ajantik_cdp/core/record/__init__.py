"""The record: its one versioned schema (built and parsed only in ``record_schema``), and
what it may hold: secrets withheld by ``redaction``, found by ``secret_detection``. Pure:
``ajantik_cdp.record`` writes and reads the files."""
