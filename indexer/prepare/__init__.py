"""From a file's bytes to its chunk points' payloads and lexical vectors: in the crawl's thread
or in worker processes (issue 36), with the same function either way."""
