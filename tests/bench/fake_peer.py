"""Stands in for scripts/peer_runner.py in the tests: speaks its protocol with numpy
alone (no onnxruntime, no PyTorch), run as

    python3 fake_peer.py KIND MODEL THREADS INPUT.npy [INPUT.npy ...]

What it does is chosen per peer by the environment variable FAKE_PEER_<KIND> (the
kind in upper case, e.g. FAKE_PEER_ONNXRUNTIME):

    ok (default)   ready; each run reports FAKE_PEER_MS milliseconds (default 0.5); save
                   writes FAKE_PEER_OUTPUT (an .npy file) or, without it, the first input
                   times two
    nan            as ok, but the saved output is all NaN
    crash:N        as ok for N runs, then kills itself on the next
    garbage        ready, then answers every run with a line that is not a reply
    hang           ready, then never answers a run
    unavailable    answers that it cannot import its library, and exits
    error          answers that the model cannot be loaded, and exits 1
    silent         exits with status 3 before saying anything
"""
import os
import signal
import sys
import time

import numpy as np


def reply(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main(argv):
    kind = argv[1]
    inputs = [np.load(p) for p in argv[4:]]
    mode = os.environ.get("FAKE_PEER_" + kind.upper(), "ok")
    if mode == "silent":
        sys.stderr.write("fake peer: leaving without a word\n")
        return 3
    if mode == "unavailable":
        reply(f"unavailable fake {kind}: No module named '{kind}'")
        return 0
    if mode == "error":
        reply(f"error fake {kind}: cannot load {argv[2]}")
        return 1
    reply(f"ready fake {kind} 0.1")
    runs, limit = 0, None
    if mode.startswith("crash:"):
        limit = int(mode.split(":")[1])
    ms = float(os.environ.get("FAKE_PEER_MS", "0.5"))
    for line in sys.stdin:
        words = line.split()
        if words[0] == "run":
            if mode == "hang":
                time.sleep(3600)
            if mode == "garbage":
                reply("what run?")
                continue
            n = int(words[1])
            if limit is not None and runs + n > limit:
                sys.stderr.write(f"fake peer: crashing at run {runs + 1}\n")
                sys.stderr.flush()
                os.kill(os.getpid(), signal.SIGKILL)
            runs += n
            time.sleep(ms * n / 1e3)
            reply("times " + " ".join([str(ms)] * n))
        elif words[0] == "save":
            folder = line.strip()[len("save"):].strip()
            if "FAKE_PEER_OUTPUT" in os.environ:
                out = np.load(os.environ["FAKE_PEER_OUTPUT"])
            else:
                out = inputs[0] * 2
            if mode == "nan":
                out = np.full_like(out, np.nan)
            np.save(os.path.join(folder, "output0.npy"), out.astype(np.float32))
            reply("saved 1")
        elif words[0] == "quit":
            return 0
        else:
            reply(f"error unknown command '{line.strip()}'")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
