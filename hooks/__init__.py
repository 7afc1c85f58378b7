"""Build helpers for the LLLM reference site (never published).

MkDocs loads the hook files listed in mkdocs.yml by path; this package marker exists so the small
tools here run as modules: `python -m hooks.serve --dir public --port 8000`.
"""
