"""A program that speaks the operator protocol: prints some output, asks, reads the
answer, reports what it got. Modes (argv[1]): ask, crash, hang, spawn, noisy."""

import json
import os
import subprocess
import sys
import time

mode = sys.argv[1]
print("starting")
if mode == "ask":
    print(json.dumps({"ask": "sign_in", "id": 7, "message": "please", "portal": "x"}),
          flush=True)
    answer = json.loads(sys.stdin.readline())
    print(f"R-101: done (answer ok={answer['ok']} id={answer['id']} msg={answer['message']})")
    print(f"env CDP_URL={os.environ['CDP_URL']} RUN_DIR={os.environ['AJANTIK_RUN_DIR']}")
elif mode == "crash":
    print("R-101: done", flush=True)
    sys.stderr.write("Traceback (most recent call last):\nRuntimeError: boom\n")
    sys.exit(3)
elif mode == "hang":
    print("working", flush=True)
    time.sleep(600)
elif mode == "spawn":
    # A child that would outlive its parent, writing its pid for the test to check.
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    with open(sys.argv[2], "w") as f:
        f.write(str(child.pid))
    print("spawned", flush=True)
    time.sleep(600)
elif mode == "noisy":
    sys.stdout.write("x" * 200_000 + "\n")
    print('{"ask": ""}')  # not an ask: an empty one
    print('["ask", "sign_in"]')
    print("R-101: done")
