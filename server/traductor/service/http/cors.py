"""LibreTranslate's CORS answer: any origin may call the API from a browser (app.py adds these
headers to every answer; a stream sends them itself, before its first event)."""

CORS_HEADERS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
    "Access-Control-Allow-Headers": "Authorization, Content-Type, X-Request-Id",
    "Access-Control-Expose-Headers": "X-Request-Id",
    "Access-Control-Max-Age": str(20 * 24 * 3600),
}
