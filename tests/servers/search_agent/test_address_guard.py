"""The SSRF guard on its own: address kinds, URL checks, and the connect-time check."""

from __future__ import annotations

import ipaddress

import httpx
import pytest

from lakeboard.servers.search_agent.address_guard import (
    AddressPolicy,
    BlockedAddressError,
    GuardedNetworkBackend,
    check_url,
    guarded_transport,
)

STRICT = AddressPolicy()
PRIVATE_OK = AddressPolicy(allow_private=True)


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("fd00::1", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("0.0.0.0", "unspecified"),
        ("240.0.0.1", "reserved"),
        ("100.64.0.1", "non-public"),
        ("::ffff:127.0.0.1", "loopback"),
        ("::ffff:10.0.0.1", "private"),
    ],
)
def test_non_public_addresses_are_refused(address: str, kind: str) -> None:
    reason = STRICT.refusal(ipaddress.ip_address(address))
    assert reason is not None and kind in reason


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_are_allowed(address: str) -> None:
    assert STRICT.refusal(ipaddress.ip_address(address)) is None


def test_allow_private_opens_private_loopback_and_link_local_only() -> None:
    for address in ("127.0.0.1", "10.0.0.1", "169.254.1.1", "::1"):
        assert PRIVATE_OK.refusal(ipaddress.ip_address(address)) is None
    for address in ("224.0.0.1", "0.0.0.0", "240.0.0.1"):
        assert PRIVATE_OK.refusal(ipaddress.ip_address(address)) is not None


def test_allowed_networks_open_exactly_those_networks() -> None:
    policy = AddressPolicy.from_strings(False, ["127.0.0.1/32"])
    assert policy.refusal(ipaddress.ip_address("127.0.0.1")) is None
    assert policy.refusal(ipaddress.ip_address("127.0.0.2")) is not None
    assert policy.refusal(ipaddress.ip_address("10.0.0.1")) is not None
    with pytest.raises(ValueError, match="Not a network address"):
        AddressPolicy.from_strings(False, ["not-a-net"])


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://127.0.0.1/", "loopback"),
        ("http://[::1]:8080/x", "loopback"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("https://10.0.0.5/admin", "private"),
        ("http://localhost:9/", "loopback"),  # a name is resolved, then its addresses are checked
        ("http://0.0.0.0/", "unspecified"),
        ("file:///etc/passwd", "Only http and https"),
        ("ftp://example.org/x", "Only http and https"),
        ("http:///no-host", "has no host"),
        ("http://example.org:99999/", "invalid port"),
    ],
)
async def test_check_url_refuses_with_a_reason(url: str, message: str) -> None:
    with pytest.raises(BlockedAddressError, match=message):
        await check_url(url, STRICT)


async def test_check_url_names_the_resolved_address() -> None:
    with pytest.raises(BlockedAddressError, match=r"localhost \(resolves to (127\.0\.0\.1|::1)\)"):
        await check_url("http://localhost/", STRICT)


async def test_check_url_accepts_public_literals_and_allowed_loopback() -> None:
    assert [str(a) for a in await check_url("https://93.184.216.34/page", STRICT)] == ["93.184.216.34"]
    assert await check_url("http://127.0.0.1:1/", PRIVATE_OK)


async def test_connect_time_check_refuses_even_without_the_url_check(web) -> None:
    """The transport itself refuses: a redirect or a changed DNS answer cannot slip past."""
    async with httpx.AsyncClient(transport=guarded_transport(STRICT)) as client:
        with pytest.raises(BlockedAddressError, match="loopback"):
            await client.get(f"{web.base}/pages/aqi.html")
    assert web.paths_requested() == []  # nothing reached the server


async def test_connect_time_check_allows_what_the_policy_allows(web) -> None:
    async with httpx.AsyncClient(transport=guarded_transport(AddressPolicy.from_strings(False, ["127.0.0.1/32"]))) as client:
        response = await client.get(f"{web.base}/pages/aqi.html")
    assert response.status_code == 200 and "air quality index" in response.text
    assert web.paths_requested() == ["/pages/aqi.html"]


async def test_guarded_backend_never_opens_unix_sockets() -> None:
    with pytest.raises(BlockedAddressError):
        await GuardedNetworkBackend(PRIVATE_OK).connect_unix_socket("/var/run/docker.sock")


def _six_to_four(ipv4: str) -> str:
    return str(ipaddress.IPv6Address((0x2002 << 112) | (int(ipaddress.IPv4Address(ipv4)) << 80) | 1))


def _nat64(ipv4: str) -> str:
    return str(ipaddress.IPv6Address(int(ipaddress.IPv6Address("64:ff9b::")) | int(ipaddress.IPv4Address(ipv4))))


def _teredo(server: str, client: str) -> str:
    obfuscated = int(ipaddress.IPv4Address(client)) ^ 0xFFFF_FFFF
    return str(ipaddress.IPv6Address(
        (0x2001_0000 << 96) | (int(ipaddress.IPv4Address(server)) << 64) | (0x8000 << 48) | (0x1234 << 32) | obfuscated
    ))


def _random_non_public_ipv4(count: int) -> list[tuple[str, str]]:
    import random

    rng = random.Random(9)
    networks = [("127.0.0.0/8", "loopback"), ("10.0.0.0/8", "private"), ("172.16.0.0/12", "private"),
                ("192.168.0.0/16", "private"), ("169.254.0.0/16", "link-local"), ("224.0.0.0/4", "multicast")]
    picked = []
    for _ in range(count):
        cidr, kind = rng.choice(networks)
        net = ipaddress.IPv4Network(cidr)
        picked.append((str(net[rng.randrange(1, net.num_addresses - 1)]), kind))
    return picked


@pytest.mark.parametrize(("ipv4", "kind"), [("127.0.0.1", "loopback"), ("10.0.0.1", "private"),
                                            ("192.168.1.1", "private"), ("169.254.169.254", "link-local"),
                                            ("0.0.0.0", "unspecified"), ("224.0.0.1", "multicast")]
                         + _random_non_public_ipv4(12))
def test_ipv6_transition_addresses_carrying_a_non_public_ipv4_are_refused(ipv4: str, kind: str) -> None:
    for address in (_six_to_four(ipv4), _nat64(ipv4), _teredo("65.54.227.120", ipv4)):
        reason = STRICT.refusal(ipaddress.ip_address(address))
        assert reason is not None and f"carries {ipv4}, a {kind} address" in reason, (address, reason)


def test_six_to_four_and_nat64_reach_public_ipv4_addresses() -> None:
    for ipv4 in ("8.8.8.8", "93.184.216.34"):
        assert STRICT.refusal(ipaddress.ip_address(_six_to_four(ipv4))) is None
        assert STRICT.refusal(ipaddress.ip_address(_nat64(ipv4))) is None
    # Teredo itself is not a global prefix, whatever it carries.
    assert STRICT.refusal(ipaddress.ip_address(_teredo("65.54.227.120", "8.8.8.8"))) is not None


def test_allowing_private_fetches_opens_transition_addresses_too() -> None:
    for address in (_six_to_four("127.0.0.1"), _nat64("10.1.2.3"), _teredo("65.54.227.120", "192.168.0.9")):
        assert PRIVATE_OK.refusal(ipaddress.ip_address(address)) is None
    assert PRIVATE_OK.refusal(ipaddress.ip_address(_six_to_four("224.0.0.1"))) is not None


async def test_check_url_refuses_a_six_to_four_literal_of_loopback() -> None:
    with pytest.raises(BlockedAddressError, match=r"carries 127\.0\.0\.1, a loopback address"):
        await check_url(f"http://[{_six_to_four('127.0.0.1')}]:8080/", STRICT)
