"""One HTTP exchange with the integration API over http.client: the request target sent is
exactly the one the signatures bind (docs/signing.md, Verifying in a client, step 2)."""

from __future__ import annotations

import http.client
import ssl
from dataclasses import dataclass
from typing import Dict, Optional
from urllib.parse import urlsplit


@dataclass
class Origin:
    scheme: str
    host: str
    port: Optional[int]
    #: A path the server is served under (no trailing slash), usually empty.
    prefix: str

    @staticmethod
    def parse(base_url: str) -> "Origin":
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"base_url must be an http:// or https:// URL, not {base_url!r}")
        if parts.query or parts.fragment:
            raise ValueError("base_url takes no query or fragment")
        return Origin(parts.scheme, parts.hostname, parts.port, parts.path.rstrip("/"))


class Exchange:
    """An answer whose body has not been read yet; ``headers`` with lower-case names."""

    def __init__(self, connection: http.client.HTTPConnection, response: http.client.HTTPResponse) -> None:
        self._connection = connection
        self.response = response
        self.status = response.status
        self.headers: Dict[str, str] = {}
        for name, value in response.getheaders():
            key = name.lower()
            # Repeated headers are joined as fetch joins them; the signed ones come once.
            self.headers[key] = value if key not in self.headers else f"{self.headers[key]}, {value}"

    def read_all(self) -> bytes:
        try:
            return self.response.read()
        finally:
            self.close()

    def read(self, size: int) -> bytes:
        return self.response.read(size)

    def close(self) -> None:
        self.response.close()
        self._connection.close()


def send(origin: Origin, method: str, target: str, headers: Dict[str, str], body: Optional[bytes], timeout: float, ssl_context: Optional[ssl.SSLContext]) -> Exchange:
    """Sends the request and reads the answer's status and headers."""
    if origin.scheme == "https":
        connection: http.client.HTTPConnection = http.client.HTTPSConnection(origin.host, origin.port, timeout=timeout, context=ssl_context or ssl.create_default_context())
    else:
        connection = http.client.HTTPConnection(origin.host, origin.port, timeout=timeout)
    try:
        connection.request(method, target, body=body, headers=headers)
        return Exchange(connection, connection.getresponse())
    except BaseException:
        connection.close()
        raise
