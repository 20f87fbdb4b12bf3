"""``regrag serve``: an HTTP API and a page over an index directory, with
bearer-token principals and access groups (docs/serve.md). Standard library only."""
