"""A streaming decryptor of the encrypted file format, version 1 (docs/encrypted-file-format.md):
AES-256-GCM over fixed-size chunks. It holds at most one stored chunk plus what it is reading,
and emits a chunk's plaintext only once that chunk's tag has verified; the output is complete
and authentic only when ``finish()`` returned without error."""

from __future__ import annotations

import base64
import binascii
import struct
from typing import Iterable, Iterator, List, Union

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

MAGIC = b"GHFE"
VERSION = 1
HEADER_LENGTH = 17
TAG_LENGTH = 16
KEY_LENGTH = 32
MAX_CHUNK_SIZE = 16 * 1024 * 1024
MAX_CHUNKS = 2 ** 31


class EncryptedFileError(Exception):
    """``code``: TRUNCATED, AUTHENTICATION_FAILED, TRAILING_DATA, NOT_ENCRYPTED_FILE,
    UNSUPPORTED_VERSION, INVALID_CHUNK_SIZE or MALFORMED, as in the reference implementation."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def files_key_bytes(key: Union[str, bytes]) -> bytes:
    """The files encryption key's 32 bytes, from its base64 (as the console shows it) or the bytes."""
    if isinstance(key, str):
        try:
            key = base64.b64decode(key, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError("files_encryption_key must be base64 of 32 bytes") from None
    if len(key) != KEY_LENGTH:
        raise ValueError("files_encryption_key must be 32 bytes (base64 of 32 bytes)")
    return bytes(key)


class Decryptor:
    """Feed stored bytes with ``update`` (each call returns the plaintext that verified so far),
    then call ``finish`` for the final chunk."""

    def __init__(self, key: bytes) -> None:
        self._aead = AESGCM(files_key_bytes(key))
        self._header = b""
        self._prefix = b""
        self._stored_chunk = 0
        self._buffer = bytearray()
        self._index = 0

    def _read_header(self) -> None:
        header = bytes(self._buffer[:HEADER_LENGTH])
        if header[:4] != MAGIC:
            raise EncryptedFileError("NOT_ENCRYPTED_FILE", "not a Gatehouse encrypted file")
        if header[4] != VERSION:
            raise EncryptedFileError("UNSUPPORTED_VERSION", f"unsupported encrypted file format version {header[4]}")
        (chunk_size,) = struct.unpack(">I", header[5:9])
        if chunk_size < 1 or chunk_size > MAX_CHUNK_SIZE:
            raise EncryptedFileError("INVALID_CHUNK_SIZE", f"invalid chunk size {chunk_size}")
        self._header, self._prefix, self._stored_chunk = header, header[9:17], chunk_size + TAG_LENGTH
        del self._buffer[:HEADER_LENGTH]

    def _open(self, chunk: bytes, last: int) -> bytes:
        if self._index >= MAX_CHUNKS:
            raise EncryptedFileError("MALFORMED", "encrypted file has too many chunks")
        nonce = self._prefix + struct.pack(">I", 2 * self._index + last)
        try:
            return self._aead.decrypt(nonce, chunk, self._header)
        except InvalidTag:
            raise EncryptedFileError("AUTHENTICATION_FAILED", "encrypted file was tampered with or the key is wrong") from None

    def update(self, data: bytes) -> bytes:
        self._buffer += data
        if not self._header:
            # Bytes that do not begin with the magic are refused at once, before more is read.
            start = bytes(self._buffer[:4])
            if start != MAGIC[: len(start)]:
                raise EncryptedFileError("NOT_ENCRYPTED_FILE", "not a Gatehouse encrypted file")
            if len(self._buffer) < HEADER_LENGTH:
                return b""
            self._read_header()
        out: List[bytes] = []
        # A chunk is opened as non-final only when at least one byte follows it.
        while len(self._buffer) > self._stored_chunk:
            chunk = bytes(self._buffer[: self._stored_chunk])
            try:
                out.append(self._open(chunk, 0))
            except EncryptedFileError:
                if self._opens(chunk, 1):
                    raise EncryptedFileError("TRAILING_DATA", "encrypted file has unexpected bytes after its final chunk") from None
                raise
            del self._buffer[: self._stored_chunk]
            self._index += 1
        return b"".join(out)

    def _opens(self, chunk: bytes, last: int) -> bool:
        try:
            self._open(chunk, last)
            return True
        except EncryptedFileError:
            return False

    def finish(self) -> bytes:
        if not self._header:
            raise EncryptedFileError("TRUNCATED", "encrypted file is truncated")
        rest = bytes(self._buffer)
        self._buffer = bytearray()
        if len(rest) < TAG_LENGTH:
            raise EncryptedFileError("TRUNCATED", "encrypted file is truncated")
        try:
            plaintext = self._open(rest, 1)
        except EncryptedFileError:
            # The rest verifies as a non-final chunk: the file was cut at a chunk boundary.
            if len(rest) == self._stored_chunk and self._opens(rest, 0):
                raise EncryptedFileError("TRUNCATED", "encrypted file is truncated") from None
            raise
        if not plaintext and self._index > 0:
            raise EncryptedFileError("MALFORMED", "encrypted file has an empty final chunk after other chunks")
        return plaintext


def decrypt_stream(key: bytes, chunks: Iterable[bytes]) -> Iterator[bytes]:
    """The plaintext of stored bytes given in pieces; raises EncryptedFileError at the first problem."""
    decryptor = Decryptor(key)
    for chunk in chunks:
        out = decryptor.update(chunk)
        if out:
            yield out
    last = decryptor.finish()
    if last:
        yield last


def decrypt_bytes(key: bytes, stored: bytes) -> bytes:
    """The plaintext of a whole stored file held in memory (small files and tests)."""
    return b"".join(decrypt_stream(key, [stored]))
