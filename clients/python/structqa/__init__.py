"""Python client for structqa, a drop-in for the System One API.

The public surface matches ``typesafe-sdk`` 0.7.1: code written for it runs after changing
``from typesafe_sdk import …`` to ``from structqa import …`` (and the key/base address settings).
"""

from structqa import constants as constants
from structqa._chunking import (
    ChunkAnswer,
    ChunkedResponse,
    ask_in_chunks,
    ask_in_chunks_async,
    chunk_limit_chars,
    combine_answers,
    split_text,
)
from structqa._client import AsyncClient, AsyncModels, Client, Models
from structqa._exceptions import (
    AllowanceExhaustedError,
    APIConnectionError,
    APIError,
    APIResponseValidationError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    DeadlineExceededError,
    InternalServerError,
    NotFoundError,
    OverloadedError,
    PayloadTooLargeError,
    PermissionDeniedError,
    ProcessedTokenCapError,
    QuestionRoom,
    RateLimitError,
    StateTooLongError,
    StructqaError,
    TooManyQuestionsError,
    UnprocessableEntityError,
)
from structqa._response import (
    AccountLimits,
    AccountRef,
    AccountUsage,
    Answer,
    ChoiceAnswer,
    DayUsage,
    ListModelsResponse,
    ModelMetadata,
    ModelUsage,
    NoulAnswer,
    ScoreAnswer,
    SystemOneResponse,
    Usage,
)
from structqa._retry import RetryPolicy
from structqa._types import (
    Choice,
    ChoiceModel,
    JSONContent,
    JSONValue,
    Noul,
    NoulCriteria,
    NoulModel,
    Question,
    QuestionModel,
    Questions,
    Score,
    ScoreModel,
)
from structqa._version import __version__ as __version__

# --- the earlier SDK's names (typesafe-sdk 0.7.1), as aliases -----------------------------------
TypeSafeClient = Client
AsyncTypeSafeClient = AsyncClient
TypeSafeError = StructqaError
TypeSafeAPIError = APIError
TypeSafeBadRequestError = BadRequestError
TypeSafeAuthenticationError = AuthenticationError
TypeSafePermissionDeniedError = PermissionDeniedError
TypeSafeNotFoundError = NotFoundError
TypeSafeUnprocessableEntityError = UnprocessableEntityError
TypeSafeRateLimitError = RateLimitError
TypeSafeInternalServerError = InternalServerError
TypeSafeAPIConnectionError = APIConnectionError
TypeSafeAPITimeoutError = APITimeoutError
TypeSafeAPIResponseValidationError = APIResponseValidationError

__all__ = [
    "APIConnectionError",
    "APIError",
    "APIResponseValidationError",
    "APITimeoutError",
    "AccountLimits",
    "AccountRef",
    "AccountUsage",
    "DayUsage",
    "ModelUsage",
    "AllowanceExhaustedError",
    "Answer",
    "AsyncClient",
    "AsyncModels",
    "AsyncTypeSafeClient",
    "AuthenticationError",
    "BadRequestError",
    "Choice",
    "ChoiceAnswer",
    "ChoiceModel",
    "ChunkAnswer",
    "ChunkedResponse",
    "Client",
    "DeadlineExceededError",
    "InternalServerError",
    "JSONContent",
    "JSONValue",
    "ListModelsResponse",
    "ModelMetadata",
    "Models",
    "NotFoundError",
    "Noul",
    "NoulAnswer",
    "NoulCriteria",
    "NoulModel",
    "OverloadedError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "ProcessedTokenCapError",
    "Question",
    "QuestionModel",
    "QuestionRoom",
    "Questions",
    "RateLimitError",
    "RetryPolicy",
    "Score",
    "ScoreAnswer",
    "ScoreModel",
    "StateTooLongError",
    "StructqaError",
    "SystemOneResponse",
    "TooManyQuestionsError",
    "TypeSafeAPIConnectionError",
    "TypeSafeAPIError",
    "TypeSafeAPIResponseValidationError",
    "TypeSafeAPITimeoutError",
    "TypeSafeAuthenticationError",
    "TypeSafeBadRequestError",
    "TypeSafeClient",
    "TypeSafeError",
    "TypeSafeInternalServerError",
    "TypeSafeNotFoundError",
    "TypeSafePermissionDeniedError",
    "TypeSafeRateLimitError",
    "TypeSafeUnprocessableEntityError",
    "UnprocessableEntityError",
    "Usage",
    "ask_in_chunks",
    "ask_in_chunks_async",
    "chunk_limit_chars",
    "combine_answers",
    "constants",
    "split_text",
]
