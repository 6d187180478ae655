"""What the guard allows, decided before any request is seen: the config, the URL rules
over every reading a server could make of a URL, the ``deny_clicks`` dialect, the
WebSocket patterns Chrome applies itself, and the one write fault of a run. Pure."""
