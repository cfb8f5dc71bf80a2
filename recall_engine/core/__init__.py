"""The core layer: search types, the error tree, public models, graph records and
typed retrieval hits. It imports nothing else from the project, so every other
layer (router, storage, retrievers, ingest, engine) may depend on it.
"""
