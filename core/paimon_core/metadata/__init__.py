"""Table metadata on disk: schemas and their evolution, snapshots, manifests, index manifests, stats."""
