"""Stored profiles: zlib until a dictionary is given, then zstd with it; every value says how to read it."""

from __future__ import annotations

import zlib

import pytest
import zstandard

from lakeboard.servers.profiling.profile_codec import ProfileCodec, UnknownDictionary


def _samples(n: int = 300) -> list[bytes]:
    return [(f'{{"path":"site_{i}/readings.csv","format":"csv","columns":[{{"name":"rain_mm","max":{i * 7 % 97}}},'
             f'{{"name":"station","examples":["ST{i:04d}","ST{i + 1:04d}"]}}],"n_rows":{i * 13 % 500}}}').encode()
            for i in range(n)]


def test_zlib_until_a_dictionary_is_added_then_zstd_with_it() -> None:
    codec = ProfileCodec()
    text = _samples()[5]
    plain = codec.encode(text)
    assert zlib.decompress(plain) == text and codec.dictionary is None
    dict_id = codec.add_dictionary(ProfileCodec.train(_samples()))
    framed = codec.encode(text)
    assert codec.dictionary == dict_id and zstandard.get_frame_parameters(framed).dict_id == dict_id
    assert len(framed) < len(plain)
    assert codec.decode(framed) == codec.decode(plain) == codec.decode(text.decode()) == text


def test_a_value_made_with_a_dictionary_it_lacks_is_refused_by_name() -> None:
    writer, reader = ProfileCodec(), ProfileCodec()
    writer.add_dictionary(ProfileCodec.train(_samples()))
    with pytest.raises(UnknownDictionary):
        reader.decode(writer.encode(_samples()[0]))


@pytest.mark.parametrize("data", [b"", b"not a dictionary", b"\x37\xa4\x30\xec" + bytes(20)])
def test_bytes_that_are_no_trained_dictionary_are_refused(data: bytes) -> None:
    codec = ProfileCodec()
    with pytest.raises(zstandard.ZstdError):
        codec.add_dictionary(data)
    assert codec.dictionary is None  # still encodes with zlib


def test_too_few_samples_train_no_dictionary() -> None:
    with pytest.raises(zstandard.ZstdError):
        ProfileCodec.train(_samples(3))
