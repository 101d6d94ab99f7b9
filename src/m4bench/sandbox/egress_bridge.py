"""In-sandbox bridge: expose the egress proxy's Unix socket as 127.0.0.1:<port>.

Runs inside the sandbox with the system Python and the standard library only:

    python3 egress_bridge.py --socket /run/m4bench/egress.sock --port 18080 -- CMD ...

It listens on the sandbox's own loopback, forwards every connection to the socket,
runs CMD as a child and exits with CMD's exit status. A SIGTERM (the harness's stop
request, sent to every process of the sandbox) leaves it running: the command keeps
its network through the grace period, and the bridge ends when the command does.
"""

from __future__ import annotations

import argparse
import contextlib
import selectors
import signal
import socket
import subprocess
import sys
import threading


def _pipe(client: socket.socket, socket_path: str) -> None:
    with client, socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as upstream:
        try:
            upstream.connect(socket_path)
        except OSError:
            return
        with selectors.DefaultSelector() as selector:
            selector.register(client, selectors.EVENT_READ, upstream)
            selector.register(upstream, selectors.EVENT_READ, client)
            while True:
                for key, _ in selector.select():
                    try:
                        chunk = key.fileobj.recv(65536)  # type: ignore[union-attr]
                        if not chunk:
                            return
                        key.data.sendall(chunk)
                    except OSError:
                        return


def _serve(listener: socket.socket, socket_path: str) -> None:
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=_pipe, args=(client, socket_path), daemon=True).start()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--socket", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given after --")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", args.port))
    listener.listen(64)
    threading.Thread(target=_serve, args=(listener, args.socket), daemon=True).start()
    # A handler, not SIG_IGN: the command must still see SIGTERM (handlers reset on exec).
    signal.signal(signal.SIGTERM, lambda *_: None)
    try:
        child = subprocess.run(command, check=False)
    except OSError as exc:
        print(f"egress bridge: cannot run {command[0]}: {exc}", file=sys.stderr)
        return 127
    finally:
        with contextlib.suppress(OSError):
            listener.close()
    code = child.returncode
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
