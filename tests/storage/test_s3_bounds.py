"""The shared vector location's requests are bounded, and ``reach`` checks the
endpoint once (a replica's check at start) with a message that names the setting
to fix and never a key."""

from __future__ import annotations

import pytest

from recall_engine.core.errors import StoreError
from recall_engine.storage.vector_location import REQUEST_BOUNDS, SharedVectors, reach
from tests.live_uvicorn import free_port
from tests.storage import moto_s3
from tests.storage.moto_s3 import SECRET, MotoS3


@pytest.fixture(scope="module")
def s3() -> MotoS3:
    return moto_s3.server()


def test_every_request_is_bounded_unless_the_options_set_their_own() -> None:
    shared = SharedVectors("s3://bucket/x", {"endpoint": "http://127.0.0.1:9", "region": "r"})
    assert shared.options == {"endpoint": "http://127.0.0.1:9", "region": "r", **REQUEST_BOUNDS}
    own = SharedVectors("s3://bucket/x", {"timeout": "120s"})
    assert own.options["timeout"] == "120s"
    assert own.options["connect_timeout"] == REQUEST_BOUNDS["connect_timeout"]
    assert "120s" not in repr(own)  # names only, as for the keys


def test_reach_passes_on_a_bucket_that_answers(s3: MotoS3) -> None:
    reach(SharedVectors(s3.fresh_uri(), s3.options))


def test_reach_names_a_missing_bucket(s3: MotoS3) -> None:
    with pytest.raises(StoreError, match="bucket does not exist") as caught:
        reach(SharedVectors("s3://no-such-bucket-here/x", s3.options))
    assert "'no-such-bucket-here'" in str(caught.value) and SECRET not in str(caught.value)


def test_reach_names_an_endpoint_that_does_not_answer(s3: MotoS3) -> None:
    nowhere = {**s3.options, "endpoint": f"http://127.0.0.1:{free_port()}"}
    nowhere["client_max_retries"] = "0"
    with pytest.raises(StoreError, match="endpoint cannot be reached") as caught:
        reach(SharedVectors(s3.fresh_uri(), nowhere))
    text = str(caught.value)
    assert text.startswith("Could not list the vector tables in bucket")
    assert "vector_storage_options" in text and SECRET not in text
