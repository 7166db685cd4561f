"""The Paimon REST catalog server: the HTTP layer (``app``) over the request handling
(``service``), which works through a core ``Catalog`` only. Nothing here is imported by the core."""
