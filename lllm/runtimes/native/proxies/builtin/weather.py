"""Layer 3 · an example proxy backed by local data: the seed's weather API, with no network.

Read `proxies.py` first. `fetch` is overridden to read a small table instead of sending HTTP, so
the page and the tests can run an agent that programs against an API.

Usage:

    >>> WeatherProxy().call("current", {"city": "Paris"})
    {'city': 'Paris', 'temp': 21.5}
"""

from __future__ import annotations

from lllm.runtimes.native.proxies.base import BaseProxy, ProxyRegistrator

__all__ = ["WeatherProxy", "CONDITIONS"]

CONDITIONS = {"Paris": 21.5, "Oslo": 4.5, "Cairo": 33.0, "Lima": 18.0}


# --8<-- [start:proxy]
@ProxyRegistrator(path="weather", name="Weather API", description="Current conditions.")
class WeatherProxy(BaseProxy):
    @BaseProxy.endpoint(
        category="current",
        endpoint="current",
        description="Current temperature for a city.",
        params={"city*": (str, "Paris")},
        response={"city": "Paris", "temp": 21.5},
    )
    def current(self, params: dict) -> dict:
        return {"city": params["city"].strip().title()}

    def fetch(self, endpoint: str, params: dict) -> dict:
        if params["city"] not in CONDITIONS:
            raise KeyError(f"unknown city {params['city']!r} (known: {sorted(CONDITIONS)})")
        return {"city": params["city"], "temp": CONDITIONS[params["city"]]}
# --8<-- [end:proxy]
