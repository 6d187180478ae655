"""Writing and reading the guard's JSONL record (its schema: ``core.record.record_schema``)."""
