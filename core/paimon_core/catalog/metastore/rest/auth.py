"""How the REST client authenticates each request (``token.provider``): ``bear`` (a bearer
token, the default when ``token`` is given), ``dlf`` (DLF request signing), or none.
Invariant: every request, the config request included, carries the headers of the configured
provider, computed for that request with the credentials current at that moment.

DLF, chosen as Java Paimon's ``DLFAuthProviderFactory`` chooses: the signing algorithm is
``dlf.signing-algorithm`` when set, else ``openapi`` for a ``uri`` containing ``dlfnext`` (any
case) and ``default`` otherwise; the region is ``dlf.region``, else the first
``[pre-]word-word[-digits]`` in the ``uri``; the keys come from ``dlf.token-loader``
(``local_file`` reads ``dlf.token-path``, ``ecs`` a metadata service) when set, else from
``dlf.token-path`` when set, else from ``dlf.access-key-id``/``dlf.access-key-secret`` (with
``dlf.security-token``). ``dlf_token`` says when keys are loaded again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from paimon_core.catalog.metastore.rest import dlf_openapi_signer, dlf_signer
from paimon_core.catalog.metastore.rest.dlf_token import (
    DlfCredentials,
    DlfToken,
    EcsMetadata,
    Fixed,
    TokenFile,
)
from paimon_core.errors import InvalidInput
from paimon_core.options.catalog_options import (
    DLF_ACCESS_KEY_ID,
    DLF_ACCESS_KEY_SECRET,
    DLF_REGION,
    DLF_SECURITY_TOKEN,
    DLF_SIGNING_ALGORITHM,
    DLF_TOKEN_ECS_METADATA_URL,
    DLF_TOKEN_ECS_ROLE_NAME,
    DLF_TOKEN_LOADER,
    DLF_TOKEN_PATH,
    TOKEN,
    TOKEN_PROVIDER,
    URI,
)
from paimon_core.options.view import OptionView

_REGION_IN_URI = re.compile(r"(?:pre-)?([a-z]+-[a-z]+(?:-\d+)?)")


def signing_algorithm(view: OptionView) -> str:
    """``dlf.signing-algorithm`` when set, else what the endpoint ``uri`` implies."""
    if view.is_set(DLF_SIGNING_ALGORITHM):
        return view.get(DLF_SIGNING_ALGORITHM)
    return dlf_openapi_signer.IDENTIFIER if "dlfnext" in (view.get(URI) or "").lower() else "default"


def region(view: OptionView) -> str | None:
    """``dlf.region`` when set, else the region named in the ``uri`` (None: neither)."""
    given = view.get(DLF_REGION)
    if given:
        return given
    m = _REGION_IN_URI.search(view.get(URI) or "")
    return m[1] if m else None


def credentials(view: OptionView) -> DlfCredentials:
    """Where the DLF keys come from, as Java picks it (token loader, token file, access key)."""
    loader, path = view.get(DLF_TOKEN_LOADER), view.get(DLF_TOKEN_PATH)
    if loader == "ecs":
        return DlfCredentials(
            EcsMetadata(view.get(DLF_TOKEN_ECS_METADATA_URL), view.get(DLF_TOKEN_ECS_ROLE_NAME))
        )
    if loader == "local_file" or path:
        if not path:
            raise InvalidInput("dlf.token-loader 'local_file' needs the catalog option dlf.token-path")
        return DlfCredentials(TokenFile(path))
    key_id, secret = view.get(DLF_ACCESS_KEY_ID), view.get(DLF_ACCESS_KEY_SECRET)
    if key_id and secret:
        return DlfCredentials(Fixed(DlfToken(key_id, secret, view.get(DLF_SECURITY_TOKEN) or None)))
    raise InvalidInput(
        "token.provider 'dlf' needs dlf.access-key-id and dlf.access-key-secret, dlf.token-path, "
        "or dlf.token-loader"
    )


class RestAuth:
    def __init__(self, options: Mapping[str, str]):
        view = OptionView(options)
        token = view.get(TOKEN)
        self.provider = (view.get(TOKEN_PROVIDER) or ("bear" if token else "none")).lower()
        self.token = token
        if self.provider == "bear" and not token:
            raise InvalidInput("token.provider 'bear' needs the catalog option 'token'")
        if self.provider == "dlf":
            self.algorithm = signing_algorithm(view)
            where = region(view)
            if not where:
                raise InvalidInput(
                    "token.provider 'dlf' needs the catalog option dlf.region (none in the uri)"
                )
            self.region = where
            self.credentials = credentials(view)
        elif self.provider not in ("bear", "none"):
            raise InvalidInput(f"token.provider '{self.provider}' is not supported: use 'bear' or 'dlf'")

    def headers(self, method: str, path: str, params: Mapping[str, str], body: str | None) -> dict[str, str]:
        """The auth headers of one request (``path`` as sent, ``params`` as the client signs them:
        each value URL-encoded once)."""
        if self.provider == "bear":
            return {"Authorization": f"Bearer {self.token}"}
        if self.provider == "dlf":
            t = self.credentials.token()
            if self.algorithm == dlf_openapi_signer.IDENTIFIER:
                return dlf_openapi_signer.sign(
                    method, path, params, body, t.access_key_id, t.access_key_secret, t.security_token
                )
            return dlf_signer.sign(
                method,
                path,
                params,
                body,
                t.access_key_id,
                t.access_key_secret,
                self.region,
                t.security_token,
            )
        return {}
