"""Finding and starting Chrome or Chromium with a debugging port and its own profile."""
