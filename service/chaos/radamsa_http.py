"""Malformed HTTP/1.1 requests from radamsa (the general-purpose fuzzer of the Oulu University Secure
Programming Group, through its Python binding pyradamsa), sent over raw sockets to a live service.

Each request is a radamsa mutation of one of a few well-formed seed requests (calls with and without
a key, bodies by Content-Length and chunked, over the body limit, other routes). The client behaves
as a careful one: it writes its whole request, and only then reads (see exchange()). It records every response's status and headers, and every connection that
was reset or closed without an answer after the request had bytes in it.

    python radamsa_http.py --port PORT --key KEY [--count 2000] [--seed 32]

Prints one JSON object: counts by status, and the requests (as repr, cut) whose answer broke the
contract: a status >= 500 other than 503/529 with Retry-After, a response without x-request-id =
x-typesafe-request-id or (an error) without x-service-error-code, a reset, no answer at all.
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from collections import Counter

import pyradamsa


def seeds(key: str) -> list[bytes]:
    call = b'{"model":"legacy-latest","state":"The parcel arrived late.","questions":{"q":{"type":"noul","instructions":"Late?"}}}'
    big = b'{"state":"' + b"x" * 1_100_000 + b'","questions":{"q":{"type":"noul"}}}'
    auth = f"Authorization: Bearer {key}\r\n".encode()

    def post(body: bytes, extra: bytes = b"", with_key: bool = True) -> bytes:
        head = b"POST /v1/systemone HTTP/1.1\r\nHost: 127.0.0.1\r\n" + (auth if with_key else b"") + b"Content-Type: application/json\r\n" + extra
        return head + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body

    def chunked(body: bytes) -> bytes:
        head = b"POST /v1/systemone HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        return head + f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"

    return [
        post(call),
        post(call, with_key=False),
        post(call, b"Idempotency-Key: fuzz-1\r\n"),
        chunked(call),
        post(big),
        chunked(big),
        b"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        b"GET /v1/usage?month=2026-11 HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + b"\r\n",
        b"GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
        b"DELETE /admin/keys/key_abc HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer nope\r\n\r\n",
    ]


def exchange(port: int, request: bytes, first_wait: float, timeout: float) -> tuple[bytes, str | None]:
    """Send it all, then read: (bytes received, error).

    The client does not half-close at once: a server takes a client's FIN for a hang-up and drops the
    call (never charging a client that left). It reads until a whole answer has come (and nothing
    more for a moment) or the server closes; a request the server is still waiting on after
    `first_wait` (a mutated Content-Length asking for more body) is then ended with a half-close, to
    which the server answers 400, and read until the server closes or `timeout`.
    """
    received = b""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        try:
            s.sendall(request)
        except OSError:
            pass  # the server answered and closed before the whole request was taken: read what it said
        s.settimeout(0.25)
        start = time.monotonic()
        half_closed = False
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                return received, "reset"
            except socket.timeout:
                if complete(received):
                    return received, None
                waited = time.monotonic() - start
                if not half_closed and waited > first_wait:
                    try:
                        s.shutdown(socket.SHUT_WR)
                    except OSError:
                        pass
                    half_closed = True
                elif waited > timeout:
                    return received, "timeout"
                continue
            if not chunk:
                return received, None
            received += chunk


def complete(raw: bytes) -> bool:
    """Whether a final response and its whole body have arrived."""
    rest = raw
    while rest.startswith(b"HTTP/1."):
        head, sep, rest = rest.partition(b"\r\n\r\n")
        if not sep:
            return False
        status = int(head.split(b" ", 2)[1])
        length = int(re.search(rb"(?im)^content-length:\s*(\d+)", head).group(1)) if re.search(rb"(?im)^content-length:", head) else 0
        if status >= 200:
            return len(rest) >= length
        rest = rest[length:]
    return False


def responses(raw: bytes) -> list[tuple[int, dict[str, str]]]:
    """Every final response in what a connection received (pipelined requests get one each)."""
    out = []
    rest = raw
    while rest.startswith(b"HTTP/1."):
        head, sep, rest = rest.partition(b"\r\n\r\n")
        if not sep:
            break
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ")[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0") or 0)
        rest = rest[length:]
        if status >= 200:
            out.append((status, headers))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=32)
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds a connection may take in all")
    parser.add_argument("--first-wait", type=float, default=2.0, help="seconds before a request still unanswered is ended by a half-close")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--dump", type=int, help="write request number N to stdout (bytes) and exit")
    args = parser.parse_args()

    radamsa = pyradamsa.Radamsa()
    pool = seeds(args.key)
    requests = []
    for i in range(args.count):
        seed = pool[i % len(pool)]
        # A body over the limit is mutated in its first 8 KiB (request line, headers, the body's start)
        # and sent whole: radamsa over a megabyte takes a tenth of a second a request.
        head, tail = (seed[:8192], seed[8192:]) if len(seed) > 65536 else (seed, b"")
        requests.append(radamsa.fuzz(head, seed=args.seed * 100_000 + i, max_mut=len(head) + 4096) + tail)
    if args.dump is not None:
        import sys

        sys.stdout.buffer.write(requests[args.dump])
        return

    statuses: Counter[str] = Counter()
    broken: list[str] = []
    with ThreadPoolExecutor(max_workers=args.concurrency) as workers:
        outcomes = list(workers.map(lambda r: exchange(args.port, r, args.first_wait, args.timeout), requests))
    for i, (request, (raw, error)) in enumerate(zip(requests, outcomes)):
        answers = responses(raw)
        what = "#%d %r" % (i, re.sub(rb"sqa_live_[0-9A-Za-z]{9,}", b"sqa_live_...", request[:160]))
        if error in ("reset", "timeout"):
            statuses[error] += 1
            broken.append(f"{error}: {what}")
            continue
        if not answers:
            # no answer: only right when the request had no request in it at all (nothing but blank lines)
            statuses["no answer"] += 1
            if request.strip():
                broken.append(f"no answer ({len(raw)} bytes): {what}")
            continue
        for status, headers in answers:
            statuses[str(status)] += 1
            retryable = status in (503, 529) and "retry-after" in headers
            if status >= 500 and not retryable:
                broken.append(f"{status}: {what}")
            rid = headers.get("x-request-id", "")
            if not rid.startswith("req_") or headers.get("x-typesafe-request-id") != rid:
                broken.append(f"{status} without x-request-id = x-typesafe-request-id: {what}")
            elif status >= 400 and not headers.get("x-service-error-code"):
                broken.append(f"{status} without x-service-error-code: {what}")
    print(json.dumps({"requests": args.count, "statuses": dict(sorted(statuses.items())), "broken": broken[:50], "broken_count": len(broken)}))


if __name__ == "__main__":
    main()
