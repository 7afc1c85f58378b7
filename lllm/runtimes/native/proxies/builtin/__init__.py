"""Layer 3 · the built-in proxies: examples that run offline (weather.py).

Usage:

    >>> from lllm.runtimes.native.proxies.builtin import weather
    >>> weather.__name__
    'lllm.runtimes.native.proxies.builtin.weather'
"""
