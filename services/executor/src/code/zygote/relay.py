"""The only way out of a step's network namespace: each TCP connection a step makes to its proxy
address (127.0.0.1:<port> in its own namespace, named by HTTP_PROXY and HTTPS_PROXY) is relayed,
byte for byte, to the step's egress socket outside, where the runner's egress proxy decides.
Nothing is parsed here. Runs in a process the zygote forks into the step's network namespace
but not its PID namespace: the step can neither see nor signal it."""

import os
import select
import signal
import socket

import linux

CHUNK = 65536
# Relayed connections open at once; past it a new one is closed at once (the proxy caps them too).
MAX_CONNECTIONS = 128
_IN = select.POLLIN
_OUT = select.POLLOUT
_GONE = select.POLLHUP | select.POLLERR | select.POLLNVAL


def run_relay(listener, egress_path, done_fd):
    """The relay process, on the listener the zygote opened in the step's namespace: serves until
    the zygote closes `done_fd` (the step has ended). Never returns."""
    try:
        linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL, what="parent death signal")
        serve_until(done_fd, listener, egress_path)
    finally:
        os._exit(0)


def listen(port):
    """The relay's listening socket on 127.0.0.1:`port` of the calling process's network namespace."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    listener.setblocking(False)
    return listener


class _End:
    """One side of a relayed connection: its socket, what waits to be written to it, whether it has
    sent its last byte (EOF read from it) and whether that EOF was passed on."""

    def __init__(self, sock):
        self.sock = sock
        self.pending = b""
        self.eof = False
        self.peer = None


def serve_until(done_fd, listener, egress_path):
    """Relays until `done_fd` (the step's pidfd) turns readable."""
    poller = select.poll()
    poller.register(done_fd, _IN)
    if listener is not None:
        poller.register(listener, _IN)
    ends = {}

    def interest(end):
        mask = 0
        if end.peer is not None and not end.eof and not end.peer.pending:
            mask |= _IN
        if end.pending:
            mask |= _OUT
        poller.modify(end.sock, mask)

    def close(end):
        for e in (end, end.peer):
            if e is not None and e.sock.fileno() in ends:
                poller.unregister(e.sock)
                del ends[e.sock.fileno()]
                e.sock.close()

    def accept():
        try:
            client, _ = listener.accept()
        except OSError:
            return
        if len(ends) >= 2 * MAX_CONNECTIONS:
            client.close()
            return
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(egress_path)
        except OSError:
            client.close()
            upstream.close()
            return
        a, b = _End(client), _End(upstream)
        a.peer, b.peer = b, a
        for e in (a, b):
            e.sock.setblocking(False)
            ends[e.sock.fileno()] = e
            poller.register(e.sock, _IN)

    def readable(end):
        try:
            data = end.sock.recv(CHUNK)
        except BlockingIOError:
            return
        except OSError:
            close(end)
            return
        if not data:
            end.eof = True
            if not end.peer.pending:
                shut(end.peer)
        else:
            # Appended: a hung-up socket is read out whatever the peer's backlog (it is finite).
            end.peer.pending += data
            writable(end.peer)
        if end.sock.fileno() in ends:
            interest(end)

    def writable(end):
        try:
            sent = end.sock.send(end.pending)
        except BlockingIOError:
            sent = 0
        except OSError:
            close(end)
            return
        end.pending = end.pending[sent:]
        if not end.pending and end.peer.eof:
            shut(end)
        if end.sock.fileno() in ends:
            interest(end)
            interest(end.peer)

    def shut(end):
        try:
            end.sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        if end.eof and end.peer.eof:
            close(end)

    while True:
        try:
            events = poller.poll()
        except InterruptedError:
            continue
        for fd, mask in events:
            if fd == done_fd:
                for end in list(ends.values()):
                    close(end)
                return
            if listener is not None and fd == listener.fileno():
                accept()
                continue
            end = ends.get(fd)
            if end is None:
                continue
            if mask & _OUT and end.pending:
                writable(end)
            if fd in ends and mask & (_IN | _GONE):
                readable(end)

