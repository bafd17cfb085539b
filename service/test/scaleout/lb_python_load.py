"""Load from the official Python client (structqa) through the load balancer, for load-balancer.test.ts.

Env: SERVER_URL (the balancer), KEY, WORKERS, PREFIX (Idempotency-Key prefix). Each worker thread
sends calls of 1, 4 or 8 questions with its own Idempotency-Keys until a line arrives on stdin (or
MAX_SECONDS pass), retrying as the client does (more retries than the default, within a 90 s budget:
a call caught on a killed replica waits for that replica's reservation to expire). One JSON line per
attempt ({"kind":"attempt"}) and per call ({"kind":"call"}) goes to stdout.
"""

import json
import os
import sys
import threading
import time

import httpx

from structqa import Client, RetryPolicy, StructqaError

URL = os.environ["SERVER_URL"]
KEY = os.environ["KEY"]
WORKERS = int(os.environ.get("WORKERS", "3"))
PREFIX = os.environ.get("PREFIX", "py")
MAX_SECONDS = float(os.environ.get("MAX_SECONDS", "120"))
STATE = "The parcel arrived two days late and the box was damaged."
SIZES = [1, 4, 8]

stop = threading.Event()
out_lock = threading.Lock()


def emit(record: dict) -> None:
    with out_lock:
        sys.stdout.write(json.dumps(record) + "\n")
        sys.stdout.flush()


def worker(i: int) -> None:
    def on_response(response: httpx.Response) -> None:
        emit(
            {
                "kind": "attempt",
                "status": response.status_code,
                "code": response.headers.get("x-service-error-code"),
                "replica": response.headers.get("x-structqa-replica"),
            }
        )

    http = httpx.Client(timeout=60.0, event_hooks={"response": [on_response]})
    retry = RetryPolicy(max_retries=1000, backoff_initial=0.05, backoff_max=0.5, timeout=90.0)
    with Client(api_key=KEY, base_url=URL, http_client=http, retry=retry, model="core-0.3.20") as client:
        n = 0
        while not stop.is_set():
            size = SIZES[(i + n) % len(SIZES)]
            key = f"{PREFIX}-{i}-{n}"
            questions = {f"q{j}": {"type": "noul", "instructions": f"Is statement number {j} true?"} for j in range(size)}
            try:
                r = client.system_one(STATE, questions, idempotency_key=key)
                emit({"kind": "call", "key": key, "ok": True, "processed_tokens": r.usage.processed_tokens})
            except StructqaError as e:  # a client-visible failure: the test counts it
                emit({"kind": "call", "key": key, "ok": False, "error": f"{type(e).__name__}: {e}"})
            n += 1


def wait_for_stop() -> None:
    sys.stdin.readline()
    stop.set()


threading.Thread(target=wait_for_stop, daemon=True).start()
threads = [threading.Thread(target=worker, args=(i,)) for i in range(WORKERS)]
for t in threads:
    t.start()
stop.wait(MAX_SECONDS)
stop.set()
for t in threads:
    t.join()
emit({"kind": "done"})
