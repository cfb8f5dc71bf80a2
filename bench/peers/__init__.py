"""``python -m bench.peers``: Cognee and this engine on the same conversations, back to back.

See ``bench/peers/__main__.py`` for the command and ``docs/benchmarks.md`` for results.
"""
