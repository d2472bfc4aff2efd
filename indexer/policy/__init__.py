"""Which files are source: the crawl policy, and the markers that say a tracked file is not
(a generator's header, minified lines). Pure: it reads no git; git/ plans with it."""
