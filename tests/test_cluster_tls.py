"""A cluster no stranger can use: TLS with the files genchess-cluster-certs makes,
clear refusals, and a warning on a plain scheduler off this machine.

The cluster is real: `dask scheduler` and `dask worker` processes on the loopback,
started with dask's own TLS options and the helper's files as docs/cluster.md says,
and genchess-train connects to them as a user would. Every refusal is checked the
way a user meets it: one line on stderr, exit status 2, no traceback, and nothing
written. The address classification is tested as a function; no test sends anything
to an address off the loopback.
"""

from __future__ import annotations

import datetime
import ssl
import stat

import pytest

distributed = pytest.importorskip("distributed", reason='needs pip install "genchess[cluster]"')
pytest.importorskip("cryptography", reason='needs pip install "genchess[cluster]"')

from genchess.parallel import certs, executors                   # noqa: E402
from genchess.parallel import cluster as dask_cluster            # noqa: E402
from train_helpers import (DaskProcesses, certs_command, check_run_files,  # noqa: E402
                           client_security, run, train_command, write_config)

POPULATION, POOLS, SWAP = 4, 2, 4


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The cluster's files, another cluster's, and this cluster's a year ago (expired)."""
    root = tmp_path_factory.mktemp("certs")
    long_ago = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=400)
    return {"ours": certs.make_cluster_files(root / "ours"),
            "other": certs.make_cluster_files(root / "other"),
            "expired": certs.make_cluster_files(root / "expired", days=30, now=long_ago)}


@pytest.fixture(scope="module")
def cluster(files, tmp_path_factory):
    dask = DaskProcesses(tmp_path_factory.mktemp("dask"), workers=2, tls=files["ours"])
    try:
        with dask.client() as client:
            client.wait_for_workers(2, timeout=60)
        yield dask.address
    finally:
        dask.close()


def switches(cluster_files: certs.ClusterFiles, ca=None) -> list[str]:
    cert, key = cluster_files.client
    return ["--tls-ca-file", str(ca or cluster_files.ca), "--tls-cert", str(cert), "--tls-key", str(key)]


def refused(tmp_path, *args) -> str:
    """genchess-train's one line for a cluster it may not use; checks how it failed."""
    cfg = write_config(tmp_path / "run.cfg", time_limit="3 seconds")
    proc = run(train_command(str(cfg), *args), cwd=tmp_path, timeout=120)
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith("genchess-train: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.cfg"], "refused, yet it wrote files"
    return proc.stderr.strip()


# ------------------------------------------------------------------ genchess-cluster-certs

def test_the_certs_helper_writes_private_keys_refuses_to_overwrite_and_prints_the_commands(tmp_path):
    target = tmp_path / "cluster"
    proc = run(certs_command(str(target), "--host", "10.1.2.3"), cwd=tmp_path, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in target.iterdir()) == sorted(certs.FILES)
    for name in certs.FILES:
        mode = stat.S_IMODE((target / name).stat().st_mode)
        assert mode == (0o600 if name.endswith("-key.pem") else 0o644), (name, oct(mode))
    files = certs.ClusterFiles(target)
    cluster_tls = f"--tls-ca-file {files.ca} --tls-cert {files.cluster[0]} --tls-key {files.cluster[1]}"
    assert f"dask scheduler {cluster_tls}" in proc.stdout
    assert f"dask worker tls://10.1.2.3:8786 {cluster_tls}" in proc.stdout
    assert (f"genchess train CONFIG --scheduler tls://10.1.2.3:8786 --tls-ca-file {files.ca} "
            f"--tls-cert {files.client[0]} --tls-key {files.client[1]}") in proc.stdout
    # Both key pairs are the CA's, as OpenSSL sees them.
    for cert, key in (files.cluster, files.client):
        context = ssl.create_default_context(cafile=str(files.ca))
        context.load_cert_chain(str(cert), str(key))
    before = {name: (target / name).read_bytes() for name in certs.FILES}
    again = run(certs_command(str(target)), cwd=tmp_path, timeout=60)
    assert again.returncode == 2 and len(again.stderr.splitlines()) == 1
    assert str(target / certs.CA_FILE) in again.stderr and "--force" in again.stderr
    assert {name: (target / name).read_bytes() for name in certs.FILES} == before
    forced = run(certs_command(str(target), "--force"), cwd=tmp_path, timeout=60)
    assert forced.returncode == 0, forced.stderr
    assert (target / certs.CA_FILE).read_bytes() != before[certs.CA_FILE]
    assert stat.S_IMODE((target / certs.CLIENT_KEY).stat().st_mode) == 0o600


# ------------------------------------------------------------------ a TLS cluster

def test_a_gene_pool_run_on_a_tls_cluster_plays_and_records_games(cluster, files, tmp_path):
    """The files given by the config's keys (the refusals below give them as switches)."""
    ours = files["ours"]
    cfg = write_config(tmp_path / "run.cfg", time_limit="3 seconds", seed=19,
                       scheduler=cluster, tls_ca_file=ours.ca, tls_cert=ours.client[0],
                       tls_key=ours.client[1])
    proc = run(train_command(str(cfg)), cwd=tmp_path, timeout=180)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    first = proc.stdout.splitlines()[0]
    assert first.startswith(f"Playing on the dask cluster at {cluster}: 2 workers") and first.endswith("(TLS)")
    assert "Warning" not in proc.stdout + proc.stderr and "Refused" not in proc.stdout
    games, _, _ = check_run_files(tmp_path / "pool.txt", POPULATION, POOLS, SWAP, fresh=True)
    assert len(games) >= 4


def test_a_client_of_another_cluster_is_refused(cluster, files, tmp_path):
    message = refused(tmp_path, "--scheduler", cluster, *switches(files["other"]))
    assert message == (f"genchess-train: the dask scheduler at {cluster} showed a certificate that "
                       f"{files['other'].ca} does not vouch for (self-signed certificate in certificate "
                       f"chain): start the scheduler and workers with the files of the same "
                       f"genchess-cluster-certs run")


def test_a_certificate_the_scheduler_does_not_know_is_refused_by_it(cluster, files, tmp_path):
    """The client trusts both CAs, so only the scheduler can refuse its certificate."""
    both = tmp_path.parent / f"{tmp_path.name}-both.pem"
    both.write_bytes(files["ours"].ca.read_bytes() + files["other"].ca.read_bytes())
    message = refused(tmp_path, "--scheduler", cluster, *switches(files["other"], ca=both))
    # (TLS 1.3: the scheduler's alert, or its hanging up, whichever the client sees first)
    assert message.startswith(f"genchess-train: the dask scheduler at {cluster} refused the "
                              f"certificate {files['other'].client[0]} (")
    assert message.endswith("): use the client files of the genchess-cluster-certs run that the "
                            "scheduler's files come from")


def test_an_expired_certificate_is_refused_before_connecting(cluster, files, tmp_path):
    message = refused(tmp_path, "--scheduler", cluster, *switches(files["expired"]))
    assert message.startswith(f"genchess-train: tls ca file {files['expired'].ca} expired on ")
    assert message.endswith(": make new files with genchess-cluster-certs")


def test_a_tls_scheduler_reached_with_tcp_says_to_use_tls(cluster, tmp_path):
    plain = cluster.replace("tls://", "tcp://")
    message = refused(tmp_path, "--scheduler", plain)
    assert message == (f"genchess-train: the dask scheduler at {plain} speaks TLS: connect to "
                       f"{cluster} with --tls-ca-file, --tls-cert and --tls-key (the files of "
                       f"its genchess-cluster-certs run)")


@pytest.mark.parametrize("case", ["no files", "a missing file", "a file of three", "a wrong key"])
def test_tls_settings_that_cannot_work_are_refused_naming_what(cluster, files, tmp_path, case):
    ours = files["ours"]
    given = switches(ours)
    if case == "no files":
        given, expected = [], (f"the scheduler {cluster} needs the cluster's TLS files: "
                               f"--tls-ca-file, --tls-cert and --tls-key (or the keys tls ca file, "
                               f"tls cert, tls key; genchess-cluster-certs makes them)")
    elif case == "a missing file":
        given[3], expected = str(tmp_path / "nowhere.pem"), f"tls cert {tmp_path / 'nowhere.pem'}: no such file"
    elif case == "a file of three":
        given, expected = given[2:4], ("TLS needs the cluster's CA file, a certificate and its key; "
                                       "missing: tls ca file (--tls-ca-file), tls key (--tls-key)")
    else:
        given[5], expected = str(ours.cluster[1]), (f"tls key {ours.cluster[1]} is not the key of the "
                                                    f"certificate {ours.client[0]}")
    assert refused(tmp_path, "--scheduler", cluster, *given) == f"genchess-train: {expected}"


def test_a_plain_scheduler_reached_with_tls_says_it_does_not_speak_tls(files, tmp_path):
    with distributed.LocalCluster(n_workers=0, dashboard_address=":0", host="127.0.0.1") as plain:
        address = plain.scheduler_address.replace("tcp://", "tls://")
        message = refused(tmp_path, "--scheduler", address, *switches(files["ours"]))
    assert message == (f"genchess-train: the dask scheduler at {address} does not speak TLS: start "
                       f"it with --tls-ca-file, --tls-cert and --tls-key (docs/cluster.md)")


def test_tls_files_with_a_plain_address_are_refused(files, tmp_path):
    message = refused(tmp_path, "--scheduler", "tcp://127.0.0.1:9", *switches(files["ours"]))
    assert message == ("genchess-train: TLS files are given but the scheduler address "
                       "tcp://127.0.0.1:9 is plain: write tls://127.0.0.1:9")


# ------------------------------------------------------------------ without TLS: the warning

@pytest.mark.parametrize("scheduler", [
    None, "local", "local:2", "tcp://127.0.0.1:8786", "127.0.0.1:8786", "tls://127.8.9.10:8786",
    "tcp://[::1]:8786", "tcp://[::ffff:127.0.0.1]:8786", "tcp://localhost:8786",
    "tcp://LOCALHOST.:8786", "tcp://lab.localhost:8786",
])
def test_addresses_that_stay_on_this_machine(scheduler):
    assert executors.stays_on_this_machine(scheduler)


@pytest.mark.parametrize("scheduler", [
    "tcp://10.0.0.5:8786", "tcp://192.168.1.20:8786", "tcp://172.16.0.1:8786", "tcp://100.64.0.1:8786",
    "tcp://8.8.8.8:8786", "tcp://[fd00::1]:8786", "tcp://[2001:db8::1]:8786", "tcp://[fe80::1%eth0]:8786",
    "tcp://0.0.0.0:8786", "tcp://scheduler.lab:8786", "tcp://notlocalhost:8786", "tls://10.0.0.5:8786",
])
def test_addresses_that_leave_this_machine(scheduler):
    assert executors.parse_scheduler(scheduler) == scheduler
    assert not executors.stays_on_this_machine(scheduler)


def test_a_plain_scheduler_off_this_machine_gets_one_warning_line(monkeypatch):
    """Connecting for real stays on the loopback: the classification is made to call
    this loopback scheduler remote, to see what a user of a remote one reads."""
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", host="127.0.0.1") as local:
        address = local.scheduler_address
        lines: dict[str, list[str]] = {"loopback": [], "remote": []}
        for case in ("loopback", "remote"):
            if case == "remote":
                monkeypatch.setattr(dask_cluster, "stays_on_this_machine", lambda scheduler: False)
            with executors.open_executor(address, 1, out=lines[case].append):
                pass
    assert [line for line in lines["loopback"] if "Warning" in line] == []
    warning, playing = lines["remote"]
    assert warning == executors.plain_warning(address) == (
        f"Warning: {address} is a plain dask scheduler: anyone who can reach it can run code on "
        f"every worker and read or change the games on the way; use TLS (genchess-cluster-certs "
        f"DIR, then tls://, see docs/cluster.md)")
    assert playing.startswith(f"Playing on the dask cluster at {address}")


# ------------------------------------------------------------------ results are checked

def test_a_game_refused_from_one_worker_is_played_on_another(cluster, files):
    """One worker sends every game back with a result of its own making; the scheduler
    says which worker sent it, and the game is played again on the other."""
    from genchess.parallel.replay import result_problem
    from genchess.parallel.worker import play_job
    from test_game_replay import fixed_depth_job

    ours = files["ours"]
    tls = executors.TlsFiles(ours.ca, *ours.client)
    with distributed.Client(cluster, security=client_security(ours), set_as_default=False) as client:
        workers = sorted(client.scheduler_info()["workers"])
    liar = workers[0]
    # A lambda travels by value, so the workers need nothing of this test module.
    lying = (lambda job, liar=liar: (lambda r: __import__("dataclasses").replace(
        r, record=__import__("dataclasses").replace(r.record, result="2-0")))(play_job(job))
        if __import__("distributed").get_worker().address == liar else play_job(job))
    job = fixed_depth_job()
    lines: list[str] = []
    with executors.open_executor(cluster, 2, out=lines.append, tls=tls) as executor:
        result = executor.submit(lying, job, workers=[liar]).result(120)
    assert result_problem(result, job) is None and result.record.result != "2-0"
    refusals = [line for line in lines if line.startswith("Refused")]
    assert refusals == [f"Refused game 1-2 of round 1 from {liar}: the result '2-0' is none of "
                        f"1-0, 0-1, 1/2-1/2; playing it again"]

