"""How the REST client authenticates each request (``token.provider``): ``bear`` (a bearer
token, the default when ``token`` is given), ``dlf`` (DLF request signing with
``dlf.access-key-id``/``dlf.access-key-secret``, optionally ``dlf.security-token``, in
``dlf.region``; signing algorithm ``default``), or none. Invariant: every request, the config
request included, carries the headers of the configured provider, computed for that request."""

from __future__ import annotations

from collections.abc import Mapping

from paimon_core.catalog.metastore.rest import dlf_signer
from paimon_core.errors import InvalidInput

OPTIONS = (
    "token",
    "token.provider",
    "dlf.access-key-id",
    "dlf.access-key-secret",
    "dlf.security-token",
    "dlf.region",
    "dlf.signing-algorithm",
)
_DLF_NEEDS = ("dlf.access-key-id", "dlf.access-key-secret", "dlf.region")


class RestAuth:
    def __init__(self, options: Mapping[str, str]):
        token = options.get("token")
        self.provider = str(options.get("token.provider") or ("bear" if token else "none")).lower()
        self.token = token
        if self.provider == "bear" and not token:
            raise InvalidInput("token.provider 'bear' needs the catalog option 'token'")
        if self.provider == "dlf":
            missing = [k for k in _DLF_NEEDS if not options.get(k)]
            if missing:
                raise InvalidInput(f"token.provider 'dlf' needs the catalog option(s) {', '.join(missing)}")
            algorithm = str(options.get("dlf.signing-algorithm") or "default")
            if algorithm != "default":
                raise InvalidInput(f"dlf.signing-algorithm '{algorithm}' is not supported: use 'default'")
            self.key_id = str(options["dlf.access-key-id"])
            self.secret = str(options["dlf.access-key-secret"])
            self.region = str(options["dlf.region"])
            self.security_token = options.get("dlf.security-token") or None
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
