"""How a profile's JSON is stored in the profile cache: zlib, or zstd with a dictionary trained on
the lake's own profiles.

A profile is about 2.8 KB of JSON, most of it the same keys and layout in every profile of a lake.
zlib alone shrinks one to about 0.96 KB: a profile is too short for it to learn its own repeats.
A dictionary trained on the lake's profiles gives the compressor those repeats up front. Trained on
half of each lake and measured on the other half, it took a profile from 955 to 380 bytes on a
generated lake of 10k files, from 1,328 to 463 on a real lake of 132 files, and from 1,897 to
1,333 on a real one of 64 wide tables. The profile cache of the 50k-file lake of
`benchmarks/bench_scale.py` went from 60.7 MB to 26.0 MB.

Every stored value says how to read it: a zstd frame names its dictionary's id, a zlib stream
starts otherwise, and rows of older versions hold the JSON as text.
"""

from __future__ import annotations

import threading
import zlib

import zstandard

ZLIB_LEVEL = 6  # 2.8 KB of profile JSON to 0.96 KB; levels 1 and 9 gave 1.03 and 0.96 KB
ZSTD_LEVEL = 9  # with a dictionary: 439 / 415 / 378 bytes a profile at levels 3 / 6 / 9, 0.08 ms each at 9
DICTIONARY_BYTES = 32 * 1024  # 16 / 32 / 64 KB: 393 / 380 / 378 bytes a profile (10k lake)
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


class UndecodableProfile(ValueError):
    """A stored value that does not decode: damaged, or not a profile the cache wrote."""


class UnknownDictionary(UndecodableProfile):
    """A value compressed with a dictionary this codec has not been given (yet)."""


class ProfileCodec:
    """Encodes and decodes stored profiles. Safe to share between threads: each thread keeps its own
    (de)compressors, which zstandard does not let threads share."""

    def __init__(self) -> None:
        self._dictionaries: dict[int, zstandard.ZstdCompressionDict] = {}
        self._newest: int | None = None
        self._local = threading.local()

    @staticmethod
    def train(samples: list[bytes]) -> bytes:
        """A dictionary made from sample profiles' JSON (raises zstandard.ZstdError when they are too few)."""
        return zstandard.train_dictionary(DICTIONARY_BYTES, samples).as_bytes()

    def add_dictionary(self, data: bytes) -> int:
        """Read values made with this dictionary; the last one added is what `encode` uses."""
        dictionary = zstandard.ZstdCompressionDict(data, dict_type=zstandard.DICT_TYPE_FULLDICT)
        zstandard.ZstdDecompressor(dict_data=dictionary)  # raises ZstdError for bytes that are no dictionary
        if not dictionary.dict_id():
            raise zstandard.ZstdError("a dictionary without an id")
        self._dictionaries[dictionary.dict_id()] = dictionary
        self._newest = dictionary.dict_id()
        return self._newest

    @property
    def dictionary(self) -> int | None:
        """The id of the dictionary `encode` uses, or None: zlib."""
        return self._newest

    def encode(self, text: bytes) -> bytes:
        if self._newest is None:
            return zlib.compress(text, ZLIB_LEVEL)
        return self._coders(self._newest)[0].compress(text)

    def decode(self, stored: bytes | str) -> bytes:
        """The JSON of a stored value; raises UndecodableProfile (UnknownDictionary where a dictionary lacks)."""
        if isinstance(stored, str):  # a row of an earlier version: the JSON as text
            return stored.encode()
        try:
            if not stored.startswith(_ZSTD_MAGIC):
                return zlib.decompress(stored)
            dict_id = zstandard.get_frame_parameters(stored).dict_id
            if dict_id not in self._dictionaries:
                raise UnknownDictionary(dict_id)
            return self._coders(dict_id)[1].decompress(stored)
        except (zlib.error, zstandard.ZstdError) as e:
            raise UndecodableProfile(str(e)) from e

    def _coders(self, dict_id: int) -> tuple[zstandard.ZstdCompressor, zstandard.ZstdDecompressor]:
        coders = getattr(self._local, "coders", None)
        if coders is None:
            coders = self._local.coders = {}
        if dict_id not in coders:
            dictionary = self._dictionaries[dict_id]
            coders[dict_id] = (zstandard.ZstdCompressor(level=ZSTD_LEVEL, dict_data=dictionary),
                               zstandard.ZstdDecompressor(dict_data=dictionary))
        return coders[dict_id]
