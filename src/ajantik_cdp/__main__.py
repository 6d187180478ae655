"""`python -m ajantik_cdp` is `ajantik`."""

from ajantik_cdp.cli.main import main

main()
