"""Finding (``locate``) and starting (``launch``) Chrome or Chromium with a debugging port
and its own profile, and a pool of headless ones, one per worker (``pool``)."""
