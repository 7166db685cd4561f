"""How the REST client authenticates each request (``token.provider``): ``bear`` (a bearer
token, the default when ``token`` is given), ``dlf`` (DLF request signing with
``dlf.access-key-id``/``dlf.access-key-secret``, optionally ``dlf.security-token``, in
``dlf.region``; signing algorithm ``default``), or none. Invariant: every request, the config
request included, carries the headers of the configured provider, computed for that request."""

from __future__ import annotations

from collections.abc import Mapping

from paimon_core.catalog.metastore.rest import dlf_signer
from paimon_core.errors import InvalidInput
from paimon_core.options.catalog_options import (
    DLF_ACCESS_KEY_ID,
    DLF_ACCESS_KEY_SECRET,
    DLF_REGION,
    DLF_SECURITY_TOKEN,
    DLF_SIGNING_ALGORITHM,
    TOKEN,
    TOKEN_PROVIDER,
)
from paimon_core.options.view import OptionView

_DLF_NEEDS = (DLF_ACCESS_KEY_ID, DLF_ACCESS_KEY_SECRET, DLF_REGION)


class RestAuth:
    def __init__(self, options: Mapping[str, str]):
        view = OptionView(options)
        token = view.get(TOKEN)
        self.provider = (view.get(TOKEN_PROVIDER) or ("bear" if token else "none")).lower()
        self.token = token
        if self.provider == "bear" and not token:
            raise InvalidInput("token.provider 'bear' needs the catalog option 'token'")
        if self.provider == "dlf":
            key_id, secret, region = (view.get(o) for o in _DLF_NEEDS)
            if not (key_id and secret and region):
                missing = [o.key for o in _DLF_NEEDS if not view.get(o)]
                raise InvalidInput(f"token.provider 'dlf' needs the catalog option(s) {', '.join(missing)}")
            algorithm = view.get(DLF_SIGNING_ALGORITHM)
            if algorithm != "default":
                raise InvalidInput(f"dlf.signing-algorithm '{algorithm}' is not supported: use 'default'")
            self.key_id, self.secret, self.region = key_id, secret, region
            self.security_token = view.get(DLF_SECURITY_TOKEN) or None
        elif self.provider not in ("bear", "none"):
            raise InvalidInput(f"token.provider '{self.provider}' is not supported: use 'bear' or 'dlf'")

    def headers(self, method: str, path: str, params: Mapping[str, str], body: str | None) -> dict[str, str]:
        """The auth headers of one request (``path`` as sent, ``params`` as the client signs them)."""
        if self.provider == "bear":
            return {"Authorization": f"Bearer {self.token}"}
        if self.provider == "dlf":
            return dlf_signer.sign(
                method, path, params, body, self.key_id, self.secret, self.region, self.security_token
            )
        return {}
