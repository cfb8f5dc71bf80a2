"""HydraDB's official v2 SDK (`hydradb-sdk` 2.x), unchanged, against recall-engine.

Start a server, then point the SDK at it:

    recall-engine serve --api-key acme=acme-key-0000000000000
    HYDRADB_URL=http://127.0.0.1:8000 HYDRADB_KEY=acme-key-0000000000000 \\
        python examples/hydradb_v2.py

`pip install hydradb-sdk` installs a package named `hydra_db`, as the v1 SDK
(`hydra-db-python`) does: keep the two in separate environments. In a checkout,
`make install` puts the v2 SDK in its own folder: prefix the command with
`PYTHONPATH=.venv/hydradb-sdk-v2`.
"""

from __future__ import annotations

import contextlib
import json
import os

from hydra_db import HydraDB
from hydra_db.errors import ConflictError


def main(base_url: str, key: str) -> None:
    client = HydraDB(base_url=base_url, token=key)
    with contextlib.suppress(ConflictError):  # made by an earlier run
        client.databases.create(
            database="acme",
            database_metadata_schema=[{"name": "team", "data_type": "VARCHAR"}],
        )
    client.context.ingest(
        database="acme",
        collection="ops",
        type="memory",
        memories=json.dumps(
            [
                {
                    "id": "rota",
                    "text": "Mira is on call for the payments API this week",
                    "metadata": {"team": "payments"},
                },
                {
                    "id": "backup",
                    "text": "Backups of the search cluster run at 02:00",
                    "metadata": {"team": "search"},
                },
            ]
        ),
    )
    found = client.query(
        database="acme",
        collection="ops",
        type="memory",
        query="who is on call?",
        attributes={"team": {"$in": ["payments", "billing"]}},
        max_results=3,
    )
    print([chunk.id for chunk in found.data.chunks])
    print(found.data.llm_prompt)


if __name__ == "__main__":
    main(os.environ.get("HYDRADB_URL", "http://127.0.0.1:8000"), os.environ["HYDRADB_KEY"])
