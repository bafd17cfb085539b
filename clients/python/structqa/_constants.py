"""Internal protocol constants."""

SYSTEM_ONE_PATH = "/v1/systemone"
MODELS_PATH = "/v1/models"
USAGE_PATH = "/v1/usage"

SDK_NAME = "structqa-client"
LOGGER_NAME = "structqa"

REQUEST_ID_HEADERS = ("x-request-id", "x-typesafe-request-id")
ERROR_CODE_HEADER = "x-service-error-code"
RETRY_AFTER_HEADER = "retry-after"
RETRY_AFTER_MS_HEADER = "retry-after-ms"
IDEMPOTENCY_KEY_HEADER = "Idempotency-Key"
RETRY_COUNT_HEADER = "X-Retry-Count"
SDK_HEADER = "X-Structqa-SDK"
RUNTIME_HEADER = "X-Structqa-Runtime"

MAX_ERROR_BODY_LENGTH = 200
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key"})
