"""`genchess lab serve`: the lab's live page.

Flask for the routes and waitress to serve them (both well kept, pure Python, in
Debian and on PyPI: the `lab` extra), Chart.js for the charts, shipped in the
package (genchess/lab/static/, from Debian's libjs-chart.js), so the page works on
a machine without internet and fetches nothing at run time.

The page only reads: it lists the queue and each job's progress from the job's own
files; it cannot queue or run anything (that goes through `genchess lab add` and its
checks). Files are served from a job's folder only, by plain names. It listens on
loopback unless told otherwise; another address needs a token, and a request from
another host without the token (query ?token=, the X-Lab-Token header, or the
cookie the first good request sets) is refused, as is a loopback request naming
another host (a page elsewhere reaching this one through DNS rebinding).
"""

from __future__ import annotations

import hmac
import ipaddress
import re

from genchess.files import package_file
from genchess.lab import kinds

STATIC = package_file("lab", "static")
LOOPBACK_NAMES = {"localhost", "127.0.0.1", "[::1]", "::1"}
FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,100}")
SERVED_FILES = re.compile(r"(games\.pgn|output\.log|report\.(html|md)|gauntlet\.md|[a-z_]+\.png)")


class WebError(Exception):
    """The page cannot be served as asked (a bind without a token, no flask)."""


def _loopback(address: str | None) -> bool:
    try:
        return ipaddress.ip_address((address or "").split("%")[0]).is_loopback
    except ValueError:
        return False


def create_app(queue, token: str | None = None):
    try:
        from flask import Flask, abort, jsonify, request, send_file, send_from_directory
    except ImportError:
        raise WebError("the page needs the lab's extras: pip install \"genchess[lab]\"") from None
    from genchess.lab.queue import QueueError, Queue

    app = Flask(__name__, static_folder=str(STATIC), static_url_path="/static")
    app.config["MAX_CONTENT_LENGTH"] = 1024      # it takes no uploads
    lab = queue.lab
    # One connection a thread: waitress answers on several.
    import threading
    local = threading.local()

    def db() -> Queue:
        if not hasattr(local, "queue"):
            local.queue = Queue(lab, create=False)
        return local.queue

    @app.before_request
    def guard():
        given = request.args.get("token") or request.headers.get("X-Lab-Token") or \
            request.cookies.get("lab_token")
        if token is not None and given is not None and hmac.compare_digest(given, token):
            return None
        host = (request.host or "").rsplit(":", 1)[0] if not (request.host or "").startswith("[") \
            else (request.host or "").split("]")[0] + "]"
        if _loopback(request.remote_addr) and host in LOOPBACK_NAMES:
            return None
        abort(403)

    @app.after_request
    def headers(response):
        if token is not None and request.args.get("token") and \
                hmac.compare_digest(request.args["token"], token):
            response.set_cookie("lab_token", token, httponly=True, samesite="Strict")
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Cache-Control"] = "no-store"
        return response

    @app.errorhandler(400)
    @app.errorhandler(403)
    @app.errorhandler(404)
    @app.errorhandler(405)
    @app.errorhandler(413)
    def refused(error):
        return jsonify(error=error.name, code=error.code), error.code

    @app.get("/")
    def page():
        return app.send_static_file("lab.html")

    @app.get("/api/jobs")
    def jobs():
        return jsonify([summary(job) for job in db().jobs()])

    @app.get("/api/jobs/<int:job_id>")
    def job(job_id):
        try:
            found = db().job(job_id)
        except QueueError:
            abort(404)
        job_dir = db().job_dir(job_id)
        files = {p.name for p in job_dir.glob("*") if p.is_file() and SERVED_FILES.fullmatch(p.name)} \
            if job_dir.is_dir() else set()
        if found.kind in ("match", "gauntlet") and kinds.games_file(found, job_dir).is_file():
            files.add("games.pgn")          # its own --pgn, served under the usual name
        return jsonify({**summary(found), "progress": kinds.progress(found, job_dir),
                        "message": found.message, "output": kinds.last_lines(job_dir / "output.log", 12),
                        "files": sorted(files)})

    @app.get("/jobs/<int:job_id>/<name>")
    def job_file(job_id, name):
        if not FILE_NAME.fullmatch(name) or not SERVED_FILES.fullmatch(name):
            abort(404)
        if name == "games.pgn":             # a match's PGN, wherever its --pgn put it
            try:
                found = db().job(job_id)
            except QueueError:
                abort(404)
            if found.kind in ("match", "gauntlet"):
                pgn = kinds.games_file(found, db().job_dir(job_id)).resolve()
                if not pgn.is_file():
                    abort(404)
                return send_file(pgn, mimetype="text/plain")
        # send_from_directory joins safely (no .., no absolute path) inside the folder.
        return send_from_directory(db().job_dir(job_id).resolve(), name,
                                   mimetype="text/plain" if name.endswith((".pgn", ".log", ".md")) else None)

    def summary(job) -> dict:
        return {"id": job.id, "kind": job.kind, "state": job.state, "request": job.request,
                "held": bool(job.held),
                "priority": job.priority, "timed": job.timed, "command": kinds.describe(job),
                "title": kinds.title(job),
                "created": job.created, "started": job.started, "finished": job.finished,
                "used": job.used, "attempts": job.attempts, "commit": job.commit_id,
                "report": (db().job_dir(job.id) / "report.html").exists()}

    return app


def serve(queue, bind: str, port: int, token: str | None, out=print) -> int:
    if not _loopback(bind) and bind != "localhost" and not token:
        raise WebError(f"--bind {bind} lets other machines in: give --token SECRET too "
                       f"(they must send it), or serve on 127.0.0.1")
    if token is not None and len(token) < 12:
        raise WebError("--token: at least 12 characters")
    app = create_app(queue, token)
    try:
        from waitress import create_server
    except ImportError:
        raise WebError("the page needs the lab's extras: pip install \"genchess[lab]\"") from None
    try:
        server = create_server(app, host=bind, port=port, threads=4)
    except OSError as e:
        raise WebError(f"cannot listen on {bind}:{port}: {e.strerror}") from None
    shown = f"[{bind}]" if ":" in bind else bind
    out(f"genchess lab: the page of {queue.lab} is at http://{shown}:{server.effective_port}/ "
        f"(Ctrl-C stops it)", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0
