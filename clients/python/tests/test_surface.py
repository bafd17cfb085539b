"""The public surface matches typesafe-sdk 0.7.1, so code written for it runs with an import change.

The names below are the earlier SDK's ``__all__``. When ``typesafe-sdk==0.7.1`` happens to be
installed, the signatures are also compared with the real thing (otherwise those tests skip).
"""

from __future__ import annotations

import dataclasses
import inspect

import httpx
import pytest
import structqa
from helpers import answers_body, ok

EARLIER_SDK_NAMES = [
    "Answer", "AsyncModels", "AsyncTypeSafeClient", "Choice", "ChoiceAnswer", "ChoiceModel", "JSONContent", "JSONValue",
    "ListModelsResponse", "ModelMetadata", "Models", "Noul", "NoulAnswer", "NoulCriteria", "NoulModel", "Question",
    "QuestionModel", "Questions", "RetryPolicy", "Score", "ScoreAnswer", "ScoreModel", "SystemOneResponse",
    "TypeSafeAPIConnectionError", "TypeSafeAPIError", "TypeSafeAPIResponseValidationError", "TypeSafeAPITimeoutError",
    "TypeSafeAuthenticationError", "TypeSafeBadRequestError", "TypeSafeClient", "TypeSafeError",
    "TypeSafeInternalServerError", "TypeSafeNotFoundError", "TypeSafePermissionDeniedError", "TypeSafeRateLimitError",
    "TypeSafeUnprocessableEntityError", "Usage", "constants",
]

CONSTRUCTOR = ["api_key", "model", "retry", "timeout", "headers", "transport", "http_client", "base_url"]
SYSTEM_ONE = ["state", "questions", "model", "retry", "timeout", "extra_headers", "extra_body", "response_model"]


@pytest.mark.parametrize("name", EARLIER_SDK_NAMES)
def test_every_earlier_name_exists(name: str) -> None:
    assert hasattr(structqa, name)
    assert name in structqa.__all__


@pytest.mark.parametrize("cls", [structqa.Client, structqa.AsyncClient])
def test_constructor_is_keyword_only_with_the_earlier_parameters(cls: type) -> None:
    params = inspect.signature(cls.__init__).parameters
    for name in CONSTRUCTOR:
        assert params[name].kind is inspect.Parameter.KEYWORD_ONLY
        assert params[name].default is None


@pytest.mark.parametrize("cls", [structqa.Client, structqa.AsyncClient])
def test_system_one_parameters(cls: type) -> None:
    params = list(inspect.signature(cls.system_one).parameters)
    assert params[1:] == [*SYSTEM_ONE, "deadline", "idempotency_key"]
    assert list(inspect.signature(cls(api_key="k").models.list).parameters)[:3] == ["retry", "timeout", "extra_headers"]


def test_retry_policy_fields() -> None:
    assert [f.name for f in dataclasses.fields(structqa.RetryPolicy)] == [
        "max_retries", "backoff_initial", "backoff_max", "backoff_jitter", "http_statuses", "respect_retry_after",
        "api_connection_error", "api_timeout_error", "exceptions", "predicate", "timeout"]


def test_code_written_for_the_earlier_sdk_runs_after_the_import_change() -> None:
    # The earlier SDK's own documented example, with only the import line changed
    # (`from typesafe_sdk import ...` → `from structqa import ...`) and a test transport.
    from structqa import Choice, Noul, RetryPolicy, TypeSafeClient, TypeSafeRateLimitError

    def reply(request: httpx.Request) -> httpx.Response:
        return ok({"model": "core-0.3.20", "usage": {"input_tokens": 1, "output_tokens": 1}, "answers": {
            "billing": {"type": "noul", "noul": 0.97},
            "tone": {"type": "choice", "choice": "angry", "probabilities": {"calm": 0.1, "angry": 0.9}, "confidence": 0.8}}})

    with TypeSafeClient(api_key="sq_key", base_url="http://x", retry=RetryPolicy(max_retries=3),
                        transport=httpx.MockTransport(reply)) as client:
        try:
            result = client.system_one(
                state="I was charged twice. Please help.",
                questions={
                    "billing": Noul(instructions="Is this about billing?"),
                    "tone": Choice(instructions="What is the tone?", criteria={"calm": None, "angry": None}),
                },
            )
        except TypeSafeRateLimitError:  # pragma: no cover
            raise
        assert 0 <= result.nouls["billing"].noul <= 1
        assert result.choices["tone"].choice in {"calm", "angry"}
        assert result.answers["billing"].noul == 0.97


# ---- against the real typesafe-sdk 0.7.1, when installed -------------------------------------------


def _sdk():
    sdk = pytest.importorskip("typesafe_sdk")
    if sdk.__version__ != "0.7.1":  # pragma: no cover
        pytest.skip(f"typesafe-sdk {sdk.__version__} installed, not 0.7.1")
    return sdk


def test_names_match_the_real_sdk() -> None:
    sdk = _sdk()
    assert set(sdk.__all__) <= set(structqa.__all__)


@pytest.mark.parametrize(("ours", "theirs"), [("Client", "TypeSafeClient"), ("AsyncClient", "AsyncTypeSafeClient")])
def test_signatures_match_the_real_sdk(ours: str, theirs: str) -> None:
    sdk = _sdk()
    mine, real = getattr(structqa, ours), getattr(sdk, theirs)
    real_init = [n for n in inspect.signature(real.__init__).parameters if n != "self"]
    my_init = [n for n in inspect.signature(mine.__init__).parameters if n != "self"]
    assert set(real_init) <= set(my_init)
    real_s1 = [n for n in inspect.signature(real.system_one).parameters if n != "self"]
    my_s1 = [n for n in inspect.signature(mine.system_one).parameters if n != "self"]
    assert my_s1[: len(real_s1)] == real_s1
    assert [f.name for f in dataclasses.fields(sdk.RetryPolicy)] == [f.name for f in dataclasses.fields(structqa.RetryPolicy)]
    assert {f.name: f.default for f in dataclasses.fields(sdk.RetryPolicy) if f.default is not dataclasses.MISSING} == {
        f.name: f.default for f in dataclasses.fields(structqa.RetryPolicy) if f.default is not dataclasses.MISSING}


def test_same_body_parses_the_same_as_the_real_sdk() -> None:
    sdk = _sdk()
    httpx2 = pytest.importorskip("httpx2")
    body = answers_body()
    body["usage"].pop("processed_tokens")
    theirs = sdk.SystemOneResponse.from_http_response(
        httpx2.Response(200, json=body, headers={"x-typesafe-request-id": "req_" + "1" * 32}, request=httpx2.Request("POST", "http://x/v1/systemone")))
    mine = structqa.SystemOneResponse.from_http_response(
        httpx.Response(200, json=body, headers={"x-typesafe-request-id": "req_" + "1" * 32}, request=httpx.Request("POST", "http://x/v1/systemone")))
    assert mine.model == theirs.model and mine.request_id == theirs.request_id
    assert mine.usage.input_tokens == theirs.usage.input_tokens
    for name in body["answers"]:
        assert mine.answers[name].model_dump() == theirs.answers[name].model_dump()
    assert set(mine.nouls) == set(theirs.nouls) and set(mine.choices) == set(theirs.choices) and set(mine.scores) == set(theirs.scores)
