# A pack's process tool that tries what its pack did not declare (runner confinement tests).
# Arguments on stdin: { attempt, path?, text?, port?, name?, marker? }; answers
# { ok, value?, error? } as JSON, so a refusal is an answer, not a crash.
import json
import os
import socket
import subprocess
import sys

args = json.loads(sys.stdin.read() or "{}")
attempt = args.get("attempt")
try:
    if attempt == "read":
        with open(args["path"], encoding="utf-8") as handle:
            value = handle.read()
    elif attempt == "write":
        with open(args["path"], "w", encoding="utf-8") as handle:
            handle.write(args.get("text", "written"))
        value = "written"
    elif attempt == "connect":
        with socket.create_connection(("127.0.0.1", int(args["port"])), timeout=3) as connection:
            value = connection.recv(64).decode("utf-8")
    elif attempt == "env":
        value = os.environ.get(args["name"])
    elif attempt == "linger":
        # Its own session before Popen returns: the runner's sweep of the tool's process group
        # at its exit cannot reach it, only a sandbox can.
        subprocess.Popen(
            ["bash", "-c", f"exec -a {args['marker']} sleep 300"],
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        value = "started"
    else:
        raise ValueError(f"unknown attempt {attempt}")
    print(json.dumps({"ok": True, "value": value}))
except Exception as error:  # noqa: BLE001 - every failure is the answer
    print(json.dumps({"ok": False, "error": f"{type(error).__name__}: {error}"}))
