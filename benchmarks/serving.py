"""The app a benchmark measures: one process as ``make run`` starts it, or ``processes``
processes behind HAProxy as ``make serve`` starts them (``deploy/serve.py``)."""

from contextlib import contextmanager
from dataclasses import dataclass

from benchmarks.browser_speed import start_server


@dataclass
class Served:
    url: str  # where a browser connects (the proxy, when there is one)
    backends: list  # each process's own address
    deployment: object = None  # the deploy.serve.Deployment, when proxied
    process: object = None  # the one process, when not

    def pids(self):
        """The app processes running now (behind the proxy a killed one is replaced)."""
        if self.deployment is not None:
            return [b.process.pid for b in self.deployment.backends if b.running()]
        return [self.process.pid]


@contextmanager
def served(processes=None):
    if processes:
        from deploy.serve import Deployment

        deployment = Deployment(processes, port=0, address="127.0.0.1", quiet=True).start()
        try:
            deployment.wait_until_serving()
            yield Served(deployment.url, [b.url for b in deployment.backends], deployment=deployment)
        finally:
            deployment.stop()
    else:
        process, url = start_server()
        try:
            yield Served(url, [url], process=process)
        finally:
            process.terminate()
            process.wait(timeout=30)
