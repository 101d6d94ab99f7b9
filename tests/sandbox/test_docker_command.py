"""The docker backend's command line (no Docker engine here: only the argv is checked)."""

from __future__ import annotations

from pathlib import Path

from sandbox_helpers import make_spec

from m4bench.sandbox import DockerSandbox, Limits, Mount, NetworkMode
from m4bench.sandbox.spec import EGRESS_SOCKET_IN_SANDBOX


def test_same_mounts_limits_and_no_network(tmp_path: Path) -> None:
    data = tmp_path / "parquet"
    spec = make_spec(
        tmp_path,
        mounts=(Mount(host=data, sandbox=Path("/data/mimic")),),
        env={"PATH": "/usr/bin:/bin", "OPENAI_API_KEY": "sk-secret-value"},
        limits=Limits(cpu_seconds=60, file_size_bytes=1 << 30, processes=64),
    )
    sandbox = DockerSandbox(image="m4bench-agent:test", check=False)
    argv = sandbox.build_argv(["codex", "exec"], spec, None)
    joined = " ".join(argv)
    assert argv[:3] == ["docker", "run", "--rm"]
    assert "--network none" in joined and "--cap-drop ALL" in joined
    assert f"-v {data}:/data/mimic:ro" in joined
    assert f"-v {spec.workdir}:/workdir:rw" in joined and "-w /workdir" in joined
    assert "--ulimit cpu=60:60" in joined and "nproc" not in joined
    assert f"--ulimit fsize={1 << 30}:{1 << 30}" in joined and "--pids-limit 64" in joined
    assert "sk-secret-value" not in joined
    assert "-e OPENAI_API_KEY" in joined
    assert argv[-3:] == ["m4bench-agent:test", "codex", "exec"]
    assert sandbox.host_environment(spec)["OPENAI_API_KEY"] == "sk-secret-value"


def test_proxy_mode_mounts_the_socket_and_runs_the_bridge(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, network=NetworkMode.PROXY, allowed=("api.openai.com:443",))
    socket_path = tmp_path / "egress.sock"
    argv = DockerSandbox(check=False).build_argv(["agent"], spec, socket_path)
    joined = " ".join(argv)
    assert "--network none" in joined
    assert f"-v {socket_path}:{EGRESS_SOCKET_IN_SANDBOX}" in joined
    image_at = argv.index("m4bench-agent:latest")
    assert argv[image_at + 1 : image_at + 3] == ["python3", "-I"]
    assert argv[-2:] == ["--", "agent"]
    assert "-e HTTPS_PROXY" in joined
