"""Model weights from the user's object storage (the ``weights_uri`` option) instead of Hugging Face.

``weights_uri`` names a bucket prefix in the workload's own cloud (``s3://``, ``gs://`` or an Azure
blob container URL). The boot script copies it to ``/opt/computeops/weights`` with the machine's own
identity, which the target grants read access to that bucket only: no key, SAS token or connection
string is ever written into Terraform, and a URI of another cloud is refused at once.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Literal

from ..errors import TargetError, described

__all__ = ["WEIGHTS_DIR", "WEIGHTS_OPTION", "WeightsSource", "download_lines", "parse_weights"]

ObjectStore = Literal["s3", "gcs", "azure_blob"]

WEIGHTS_DIR = "/opt/computeops/weights"
"""Where the boot script puts the weights on the machine (mounted read-only as ``/weights``)."""
WEIGHTS_OPTION = (
    "object-storage prefix holding the model weights, read at boot with the machine's identity "
    "(s3://bucket/prefix, gs://bucket/prefix, https://<account>.blob.core.windows.net/<container>/prefix "
    "on the workload's own cloud). Default: none, vLLM downloads the model from Hugging Face."
)

_KEY = r"(/[A-Za-z0-9._=+-]+)*/?"  # object-key path: no spaces, quotes, '$', '%' or '{' reach a script
_URIS: dict[ObjectStore, tuple[re.Pattern[str], str, str]] = {
    "s3": (
        re.compile(rf"^s3://(?P<bucket>[a-z0-9][a-z0-9.-]{{1,61}}[a-z0-9])(?P<key>{_KEY})$"),
        "Amazon S3",
        "s3://my-models/llama-3.1-8b",
    ),
    "gcs": (
        re.compile(rf"^gs://(?P<bucket>[a-z0-9][a-z0-9._-]{{1,61}}[a-z0-9])(?P<key>{_KEY})$"),
        "Google Cloud Storage",
        "gs://my-models/llama-3.1-8b",
    ),
    "azure_blob": (
        re.compile(
            r"^https://(?P<account>[a-z0-9]{3,24})\.blob\.core\.windows\.net/"
            rf"(?P<bucket>[a-z0-9](?:[a-z0-9-]{{1,61}}[a-z0-9])?)(?P<key>{_KEY})$"
        ),
        "Azure Blob Storage",
        "https://mymodels.blob.core.windows.net/models/llama-3.1-8b",
    ),
}
_SCHEMES: dict[ObjectStore, str] = {"s3": "s3://", "gcs": "gs://", "azure_blob": "https://"}


@dataclass(frozen=True, slots=True)
class WeightsSource:
    """A validated ``weights_uri``.

    Attributes:
        store: the object store.
        uri: the URI as given.
        bucket: the S3 / GCS bucket, or the Azure container.
        prefix: the object-key prefix without leading or trailing '/' ("" for the whole bucket).
        account: the Azure storage account ("" elsewhere).
    """

    store: ObjectStore
    uri: str
    bucket: str
    prefix: str
    account: str = ""


def _store_of(uri: str) -> ObjectStore | None:
    if uri.startswith("s3://"):
        return "s3"
    if uri.startswith("gs://"):
        return "gcs"
    if uri.startswith("https://") and ".blob.core.windows.net/" in uri:
        return "azure_blob"
    return None


def parse_weights(value: object, *, store: ObjectStore, target: str) -> WeightsSource | None:
    """The ``weights_uri`` option for a workload whose cloud has ``store``; None when not given.

    Raises:
        TargetError: not a string, a URI of another cloud (its identity cannot read it without a
            key), or a malformed URI for ``store``.
    """
    if value is None:
        return None
    pattern, name, example = _URIS[store]
    given = _store_of(value) if isinstance(value, str) else None
    if given is not None and given != store:
        raise TargetError(
            f"{target} option 'weights_uri' ({value!r}) is a {_URIS[given][1]} URI, but the workload runs "
            f"on {target}: its machines read weights with their own {target} identity, which cannot read "
            f"another cloud's bucket without a key, and computeops writes no keys into Terraform. To fix: "
            f"copy the weights to {name} (e.g. {example!r}), or drop 'weights_uri' (Hugging Face)."
        )
    match = pattern.match(value) if isinstance(value, str) else None
    if match is None or "//" in match.group("key") or "/../" in f"{match.group('key')}/":
        raise TargetError(
            f"{target} option 'weights_uri' must be a {name} URI {_SCHEMES[store]}... of letters, digits "
            f"and . _ = + - / (got {described(value)}). To fix: e.g. options={{'weights_uri': {example!r}}}."
        )
    groups = match.groupdict()
    return WeightsSource(
        store=store,
        uri=str(value),
        bucket=groups["bucket"],
        prefix=groups["key"].strip("/"),
        account=groups.get("account") or "",
    )


# Azure has no CLI on the default image: list and fetch the blobs with the managed identity's token
# from the instance metadata service (Blob REST API "List Blobs" / "Get Blob"), in the image's python3.
_AZURE_FETCH = """\
import json, os, sys, urllib.parse, urllib.request
import xml.etree.ElementTree as ET
account, container, prefix, dest = sys.argv[1:5]
imds = ("http://169.254.169.254/metadata/identity/oauth2/token?api-version=2018-02-01"
        "&resource=https%3A%2F%2Fstorage.azure.com%2F")
identity = urllib.request.Request(imds, headers={"Metadata": "true"})
token = json.load(urllib.request.urlopen(identity, timeout=30))["access_token"]
headers = {"Authorization": "Bearer " + token, "x-ms-version": "2021-08-06"}
base = "https://" + account + ".blob.core.windows.net/" + container
root_dir = os.path.realpath(dest)
marker = ""
while True:
    query = {"restype": "container", "comp": "list", "prefix": prefix + "/" if prefix else ""}
    if marker:
        query["marker"] = marker
    listing = urllib.request.Request(base + "?" + urllib.parse.urlencode(query), headers=headers)
    root = ET.fromstring(urllib.request.urlopen(listing, timeout=60).read())
    for blob in root.iter("Blob"):
        name = blob.findtext("Name") or ""
        path = os.path.realpath(os.path.join(root_dir, name[len(prefix):].lstrip("/")))
        if not path.startswith(root_dir + os.sep):
            sys.exit("computeops: refusing blob name " + repr(name))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        get = urllib.request.Request(base + "/" + urllib.parse.quote(name), headers=headers)
        with urllib.request.urlopen(get, timeout=600) as src, open(path, "wb") as out:
            while chunk := src.read(8 << 20):
                out.write(chunk)
    marker = root.findtext("NextMarker") or ""
    if not marker:
        break
"""


def download_lines(source: WeightsSource, region: str) -> list[str]:
    """Shell lines that copy the weights under ``source`` to ``WEIGHTS_DIR`` with the machine's identity."""
    q = shlex.quote
    lines = [
        f"echo {q('computeops: copying the weights from ' + source.uri)}",
        f"mkdir -p {WEIGHTS_DIR}",
    ]
    if source.store == "s3":
        path = f"s3://{source.bucket}/{source.prefix}" if source.prefix else f"s3://{source.bucket}"
        return [*lines, f"aws s3 sync --only-show-errors --region {q(region)} {q(path)} {WEIGHTS_DIR}"]
    if source.store == "gcs":
        path = f"gs://{source.bucket}/{source.prefix}" if source.prefix else f"gs://{source.bucket}"
        return [*lines, f"gcloud storage rsync --recursive --quiet {q(path)} {WEIGHTS_DIR}"]
    args = " ".join(q(a) for a in (source.account, source.bucket, source.prefix, WEIGHTS_DIR))
    return [*lines, f"python3 - {args} <<'PY'", *_AZURE_FETCH.splitlines(), "PY"]
