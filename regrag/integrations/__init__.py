"""regrag where people already work: the Model Context Protocol server
(``mcp_server``, ``mcp_protocol``, ``tools``) and the LangChain and
LlamaIndex retrievers (``langchain``, ``llama_index``; their frameworks are
optional and imported only by those two modules). docs/integrations.md."""
