"""Headers every answer of the app carries (``server.py`` installs it outermost).

``Referrer-Policy: same-origin``: a page's address goes to no other site as a referrer -- a
lecturer's link carries the class's key, a student's the class's code.
"""

from __future__ import annotations

POLICY = (b"referrer-policy", b"same-origin")


class SafeHeaders:
    """ASGI middleware: every HTTP answer gets :data:`POLICY` (in place of any of its own)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def sending(message):
            if message["type"] == "http.response.start":
                headers = [(n, v) for n, v in message.get("headers") or [] if n.lower() != POLICY[0]]
                message = {**message, "headers": [*headers, POLICY]}
            await send(message)

        return await self.app(scope, receive, sending)
