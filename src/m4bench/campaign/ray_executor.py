"""The Ray executor: each run is a Ray task with declared resources.

Ray is an optional extra (``pip install 'm4bench[ray]'``) imported only here. The run
function and the planned run travel to a worker by pickling; the record travels back
to the driver, which writes every record, so workers need no shared filesystem with
the driver. Ray re-executes a task when its worker or node dies and when it raises
:class:`InfrastructureError`; an agent failure is a record and is never retried.
Transient provider errors back off inside the task.
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any

from m4bench.campaign.retry import InfrastructureError, RetryPolicy, RunFn, call_with_backoff
from m4bench.errors import M4BenchError
from m4bench.results.campaign_files import PlannedRun
from m4bench.results.record import ResultRecord


def import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise M4BenchError(
            "the ray executor needs Ray, which is not installed",
            hint="install the extra: pip install 'm4bench[ray]'",
        ) from exc
    return ray


def _start_or_join(ray: Any, address: str | None, num_cpus: int | None) -> None:
    try:
        ray.init(address=address, num_cpus=num_cpus, log_to_driver=False)
    except Exception as exc:  # Ray raises many types here; all mean "no cluster"
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise M4BenchError(
            f"could not start or join Ray (address {address or 'default'}): {first_line}",
            hint="check `ray status`; a cluster with token authentication needs "
            "RAY_AUTH_MODE=token; --ray-address local starts a fresh Ray on this machine",
        ) from exc


def _execute(run_fn: RunFn, run: PlannedRun, policy: RetryPolicy) -> ResultRecord:
    return call_with_backoff(run_fn, run, policy)


class RayExecutor:
    """Runs as Ray tasks on a local Ray instance or an existing cluster.

    ``address``: None starts (or joins, when ``RAY_ADDRESS`` is set) a Ray instance;
    ``"local"`` always starts a new one; ``"auto"`` joins the cluster this machine
    belongs to; ``"ray://host:10001"`` joins
    a remote cluster through Ray Client. A Ray already initialised in this process is
    used as is and left running.
    """

    name = "ray"

    def __init__(
        self,
        run_fn: RunFn,
        policy: RetryPolicy,
        *,
        jobs: int | None = None,
        address: str | None = None,
        num_cpus: int | None = None,
        cpus_per_run: float = 1.0,
        memory_mb_per_run: int | None = None,
    ) -> None:
        self._ray = import_ray()
        self._owns_ray = not self._ray.is_initialized()
        if self._owns_ray:
            _start_or_join(self._ray, address, num_cpus)
        options: dict[str, Any] = {
            "num_cpus": cpus_per_run,
            "max_retries": policy.infrastructure_retries,
            "retry_exceptions": [InfrastructureError],
        }
        if memory_mb_per_run is not None:
            options["memory"] = memory_mb_per_run * 1024 * 1024
        self._remote = self._ray.remote(_execute).options(**options)
        self._run_fn = run_fn
        self._policy = policy
        cluster_cpus = float(self._ray.cluster_resources().get("CPU", 1.0))
        self._capacity = jobs or max(1, int(cluster_cpus // cpus_per_run))

    @property
    def capacity(self) -> int:
        return self._capacity

    def submit(self, run: PlannedRun) -> Future[ResultRecord]:
        future: Future[ResultRecord] = self._remote.remote(self._run_fn, run, self._policy).future()
        return future

    def close(self) -> None:
        if self._owns_ray:
            self._ray.shutdown()
