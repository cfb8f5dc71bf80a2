"""Names of values that are secrets wherever they appear as an argument or a key."""

DEFAULT_SECRET_NAMES = (
    "api_key",
    "apikey",
    "password",
    "passwd",
    "secret",
    "token",
    "access_token",
    "refresh_token",
    "authorization",
    "auth",
    "credentials",
    "private_key",
    "client_secret",
    "cookie",
    "session_key",
)
