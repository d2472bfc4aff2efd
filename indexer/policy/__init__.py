"""Which files are source: the crawl policy, and the markers that say a tracked file is not
(the repository's .gitattributes, a generator's header, minified lines, lock files). Pure: it
reads no git; git/ plans with it."""
