"""Public environment-variable names and client defaults.

The earlier SDK read ``TYPESAFE_*`` variables. This client deliberately reads ``SERVICE_*`` ones
instead: keys of the earlier service and keys of this service are separate and must stay separate
(rolling back means restoring the earlier base address *and* the earlier key).
"""

API_KEY_ENV = "SERVICE_API_KEY"
"""Environment variable for the API key."""

BASE_URL_ENV = "SERVICE_BASE_URL"
"""Environment variable for the service root (``/v1/...`` is appended)."""

DEFAULT_MODEL_ENV = "SERVICE_DEFAULT_MODEL"
"""Optional environment variable for the default model."""

DEFAULT_BASE_URL = "http://localhost:8080"
"""Used when neither ``base_url`` nor ``SERVICE_BASE_URL`` is set (the service's default port)."""

DEFAULT_MODEL = "legacy-latest"
"""Default model: a compatibility alias that routes by the state's language."""

DEFAULT_TIMEOUT = 10.0
"""Default timeout in seconds for each HTTP attempt."""

MAX_SERVER_RETRY_DELAY = 60.0
"""A server-requested delay above this many seconds is ignored in favour of backoff."""
