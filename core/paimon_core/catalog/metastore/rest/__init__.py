"""The REST catalog client: ``catalog`` (``RestCatalog``, the catalog over Paimon's REST API),
``auth`` (bearer and DLF authentication; ``dlf_signer`` signs DLF requests), ``token_io`` (file
access with the data tokens the server hands out) and ``wire`` (the JSON of requests and answers)."""
