"""Keys per caller (docs/keys.md): each client its own secret, limits, usage and glossaries.

model.py         a key, its limits, the KeyStore Protocol both stores implement
sqlite_store.py  the embedded store: keys.sqlite3 in the server's data directory
redis_store.py   the shared store of replicas: Redis (--keys-redis), atomic Lua counters
stores.py        which store a server or the `keys` command opens
gate.py          what every interface calls: the caller of a secret, its charge, its usage
command.py       `traductor keys add|list|set|revoke`
"""
