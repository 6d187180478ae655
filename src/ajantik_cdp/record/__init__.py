"""Writing and reading the guard's JSONL record (schema in ajantik_cdp.core.record_schema)."""
