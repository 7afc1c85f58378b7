"""Layer 4 · the OpenAI-compatible model server (`lllm serve-model`): TinyLLM behind OpenAI's API.

Read in this order:

    served_model.py   a model as the server serves it: settings checked, generation, streaming, cancel
    service.py        the pure handler: `OpenAIService(models).handle(method, path, body)` for
                      /v1/models, /v1/chat/completions and /v1/completions, OpenAI's error shape
    server.py         that handler as the route of the one app (lllm/services/app.py), bounded, with CORS

Tool calls in ReAct text are `lllm/services/toolcalls.py` (the MCP tools use it too). Importing
this folder imports none of its modules.
"""
