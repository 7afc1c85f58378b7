"""Locust users for bench/serve_load_bench.py: what one client of `serve-model` or `lllm serve` does.

Not run on its own: the bench starts `locust -f bench/serve_locustfile.py --headless` with
LLLM_LOAD (plain, stream or vanish) and LLLM_SERVER (model or tactic) in the environment.
A 503 (the server's queue is full) is recorded as a failure named "503 busy", and the client waits
as long as its Retry-After says, as the openai package does; any other failure keeps its own
message, so the bench can tell refusals from errors.
"""

import json
import os
import time

from locust import HttpUser, constant, task

LOAD, SERVER = os.environ.get("LLLM_LOAD", "plain"), os.environ.get("LLLM_SERVER", "model")
if SERVER == "model":
    PATH, STREAM_PATH = "/v1/completions", "/v1/completions"
    BODY = {"model": "tinyllm", "prompt": "Once upon a time", "max_tokens": 200, "seed": 1}
    STREAM_BODY = {**BODY, "stream": True}
else:
    PATH, STREAM_PATH, BODY, STREAM_BODY = "/run", "/stream", {"input": "hot"}, {"input": "hot"}


def judged(response) -> None:
    if response.status_code == 503:            # as the openai package does: wait as long as Retry-After says
        response.failure("503 busy")
        time.sleep(float(response.headers.get("retry-after", "1")))
    elif response.status_code != 200:
        response.failure(f"{response.status_code}: {response.text[:80]}")
    else:
        response.success()


class Client(HttpUser):
    wait_time = constant(0)

    @task
    def one(self):
        if LOAD == "plain":
            with self.client.post(PATH, json=BODY, name=LOAD, catch_response=True) as response:
                judged(response)
            return
        with self.client.post(STREAM_PATH, data=json.dumps(STREAM_BODY), headers={"content-type": "application/json"},
                              name=LOAD, stream=True, catch_response=True) as response:
            if response.status_code == 200:
                for _ in response.iter_lines():
                    if LOAD == "vanish":      # the first frame, then gone: the connection is closed unread
                        response.raw.close()
                        break
            judged(response)
