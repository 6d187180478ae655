"""``ajantik demo``: two scripted skills crash-tested on the portal-pilot example, judged
from the real record of every run, and checked against the portal's own state."""
