"""What a suite run is shown as. Imports no I/O: the caller reads the files and writes
the page, and the terminal modules write only to the ``rich`` console they are handed.

``report_page`` and ``templates/`` (the self-contained HTML report, from the results
data), ``terminal_tables`` (what the command prints when a suite ends, and what
``compare`` prints), ``progress_display`` (progress while a suite runs) and
``preset_table`` (the preset x variant table for docs/presets.md).
"""
