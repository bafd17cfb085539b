"""A schemathesis check of the contract's headers (loaded through SCHEMATHESIS_HOOKS by the chaos
suite's `outside` scenario): every response carries x-request-id = x-typesafe-request-id (`req_` + 32
hex digits), and every error x-service-error-code."""

import re

import schemathesis

REQUEST_ID = re.compile(r"^req_[0-9a-f]{32}$")


def _first(response, name: str) -> str:
    values = response.headers.get(name) or [""]
    return values[0]


@schemathesis.check
def contract_headers(ctx, response, case):
    request_id = _first(response, "x-request-id")
    if not REQUEST_ID.match(request_id) or _first(response, "x-typesafe-request-id") != request_id:
        raise AssertionError(f"{response.status_code} without x-request-id = x-typesafe-request-id")
    if response.status_code >= 400 and not _first(response, "x-service-error-code"):
        raise AssertionError(f"{response.status_code} without x-service-error-code")
