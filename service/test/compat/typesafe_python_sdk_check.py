"""The earlier service's official Python client, typesafe-sdk 0.7.1, unchanged but for base URL and key.

Run by typesafe-python-sdk.test.ts against a live structqa server. Environment: SERVER_URL, KEY,
KEY_SMALL_ALLOWANCE (monthly allowance too small for any call), KEY_SLOW (1 request/s), STARTING_URL
and STARTING_KEY (a server still loading its checkpoints). Exits non-zero on the first failure.
"""
import os
import re

from typesafe_sdk import (
    Choice,
    Noul,
    NoulCriteria,
    RetryPolicy,
    Score,
    TypeSafeAPIError,
    TypeSafeAuthenticationError,
    TypeSafeClient,
    TypeSafeInternalServerError,
    TypeSafeRateLimitError,
    TypeSafeUnprocessableEntityError,
)

URL = os.environ["SERVER_URL"]
NO_RETRY = RetryPolicy(max_retries=0)


def client(key: str, url: str = URL, retry: RetryPolicy = NO_RETRY) -> TypeSafeClient:
    return TypeSafeClient(api_key=key, base_url=url, retry=retry)


QUESTIONS = {
    "urgent": Noul(instructions="Does this convey urgency?", criteria=NoulCriteria(true="Explicitly time-sensitive", false="No urgency")),
    "tone": Choice(instructions="What is the customer's tone?", criteria={"calm": None, "frustrated": None, "angry": None}),
    "frustration": Score(instructions="How frustrated is the customer?", criteria=["Calm", "Frustrated but civil", "Very angry"]),
}


def expect(error_class, status, fn):
    try:
        fn()
    except error_class as error:
        got = getattr(error, "status_code", None) or getattr(error, "status", None)
        assert got == status, f"{error_class.__name__}: status {got}, expected {status}"
        return error
    raise AssertionError(f"expected {error_class.__name__} ({status})")


def main() -> None:
    with client(os.environ["KEY"]) as c:
        response = c.system_one("I have waited three weeks for my refund. Unacceptable!", QUESTIONS)
        assert re.fullmatch(r"req_[0-9a-f]{32}", response.request_id or ""), response.request_id
        assert response.model == "core-0.3.20", response.model
        assert 0 <= response.answers["urgent"].noul <= 1
        assert response.nouls["urgent"].noul == response.answers["urgent"].noul
        assert response.choices["tone"].choice in {"calm", "frustrated", "angry"}
        assert 0 <= response.choices["tone"].confidence <= 1
        assert set(response.scores["frustration"].probabilities) == {0, 1, 2}  # the SDK keys levels as ints
        assert isinstance(response.usage.input_tokens, int)
        names = [m.name for m in c.models.list().models]
        for name in ("legacy-latest", "jev-latest", "core-0.3.20", "core-multilingual-0.3.20"):
            assert name in names, name
        french = c.system_one("Bonjour, je voudrais annuler ma commande et être remboursé.", {"q": QUESTIONS["urgent"]})
        assert french.model == "core-multilingual-0.3.20", french.model

        expect(TypeSafeAPIError, 413, lambda: c.system_one("word " * 800, QUESTIONS))
        expect(
            TypeSafeUnprocessableEntityError,
            422,
            lambda: c.system_one("x", {"q": {"type": "choice", "instructions": "x", "criteria": {"only": None}}}),
        )

    expect(TypeSafeAuthenticationError, 401, lambda: client("sqa_live_" + "x" * 40).system_one("x", QUESTIONS))
    expect(TypeSafeAPIError, 402, lambda: client(os.environ["KEY_SMALL_ALLOWANCE"]).system_one("Hello, please help.", QUESTIONS))

    slow = client(os.environ["KEY_SLOW"])
    slow.system_one("first", {"q": QUESTIONS["urgent"]})
    error = expect(TypeSafeRateLimitError, 429, lambda: slow.system_one("second", {"q": QUESTIONS["urgent"]}))
    assert (error.retry_after_ms or 0) > 0, error.retry_after_ms

    expect(
        TypeSafeInternalServerError,
        529,
        lambda: client(os.environ["STARTING_KEY"], os.environ["STARTING_URL"]).system_one("x", QUESTIONS),
    )
    print("typesafe-sdk 0.7.1: all checks passed")


if __name__ == "__main__":
    main()
