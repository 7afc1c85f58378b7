"""Layer 3 · proxies: outside APIs an agent calls as tools, registered by name.

    base.py              BaseProxy, ProxyRegistrator, ProxyManager
    builtin/weather.py   an example proxy backed by local data (the seed's weather API, no network)

Usage:

    >>> from lllm.runtimes.native.proxies import BaseProxy
    >>> BaseProxy.__name__
    'BaseProxy'
"""

from lllm.runtimes.native.proxies.base import BaseProxy, ProxyManager, ProxyRegistrator

__all__ = ["BaseProxy", "ProxyManager", "ProxyRegistrator"]
