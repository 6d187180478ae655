"""Reset the portal's registry, as a test account's reset script does on a real system:
the ``--before`` command of ``ajantik test run``.

    PORTAL_RESET_TOKEN=... python -m ajantik_portal_pilot.reset [PORTAL_URL]

The portal must have been started with that token (``python -m ajantik_portal_pilot
--reset-token ...``). Exit code 0 when the registry was reset, 1 otherwise, with the
reason on stderr.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request

from ajantik_portal_pilot.skill.scripts.portal_session import portal_url


def reset(portal: str, token: str) -> int:
    request = urllib.request.Request(portal.rstrip("/") + "/_test/reset", data=b"",
                                     method="POST", headers={"X-Reset-Token": token})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            answer = json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        print(f"ajantik_portal_pilot.reset: {portal} refused the reset ({exc.code}); was it "
              "started with this --reset-token?", file=sys.stderr)
        return 1
    except (urllib.error.URLError, OSError) as exc:
        print(f"ajantik_portal_pilot.reset: cannot reach {portal}: {exc}", file=sys.stderr)
        return 1
    print(f"ajantik_portal_pilot.reset: {portal} reset ({answer.get('resets')} so far)")
    return 0


def main() -> None:
    token = os.environ.get("PORTAL_RESET_TOKEN", "")
    if not token:
        print("ajantik_portal_pilot.reset: set PORTAL_RESET_TOKEN to the portal's --reset-token",
              file=sys.stderr)
        raise SystemExit(2)
    raise SystemExit(reset(sys.argv[1] if len(sys.argv) > 1 else portal_url(), token))


if __name__ == "__main__":
    main()
