"""The point schema: identities, payloads, label metadata and the filters that find them."""
