"""`genchess-cluster-certs DIR`: the TLS files of a private dask cluster, in one step.

A dask scheduler runs whatever its clients submit on every worker, so who may
connect is the whole of a cluster's security. dask.distributed's TLS is mutual:
scheduler, workers and clients each show a certificate, and each accepts only
certificates signed by the cluster's CA (it checks no host names, so one
certificate serves every machine). This writes that CA's certificate and two key
pairs it signed, one for the scheduler and workers, one for the trainer; the
private keys are the cluster's shared secret, readable by their owner only.

The CA's own private key is never written: nobody can sign another certificate
for the cluster later, so a copied directory cannot grow new members, at the price
that adding a machine means copying the existing pair to it and replacing a lost
or leaked key means running this again (and restarting the cluster with the new
files). Keys are ECDSA P-256, made by `cryptography`, the package dask itself uses
for `Security.temporary()`.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
from dataclasses import dataclass
from pathlib import Path

DAYS = 365                          # how long the certificates are valid by default
CA_FILE = "ca.pem"
CLUSTER_CERT, CLUSTER_KEY = "cluster.pem", "cluster-key.pem"    # scheduler and workers
CLIENT_CERT, CLIENT_KEY = "client.pem", "client-key.pem"        # genchess train
FILES = (CA_FILE, CLUSTER_CERT, CLUSTER_KEY, CLIENT_CERT, CLIENT_KEY)


@dataclass(frozen=True)
class ClusterFiles:
    """Where the files of one cluster are (the paths need not exist yet)."""
    directory: Path

    @property
    def ca(self) -> Path:
        return self.directory / CA_FILE

    @property
    def cluster(self) -> tuple[Path, Path]:
        return self.directory / CLUSTER_CERT, self.directory / CLUSTER_KEY

    @property
    def client(self) -> tuple[Path, Path]:
        return self.directory / CLIENT_CERT, self.directory / CLIENT_KEY


def make_cluster_files(directory: str | Path, *, days: int = DAYS, overwrite: bool = False,
                       now: datetime.datetime | None = None) -> ClusterFiles:
    """Write a new CA's certificate, and the scheduler-and-workers and the client key
    pairs it signed, into `directory` (created if missing). Private keys are 0600.
    FileExistsError naming the first file already there, unless `overwrite`.
    `now` moves the validity period (a test's expired certificates)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    files = ClusterFiles(Path(directory))
    if not overwrite:
        for name in FILES:
            if (files.directory / name).exists():
                raise FileExistsError(f"{files.directory / name} already exists "
                                      f"(--force replaces the cluster's files)")
    start = (now or datetime.datetime.now(datetime.timezone.utc)) - datetime.timedelta(minutes=5)
    end = start + datetime.timedelta(days=days)
    serial = x509.random_serial_number()

    def name(common: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "GenChess cluster"),
                          x509.NameAttribute(NameOID.COMMON_NAME, common)])

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = name(f"GenChess cluster CA {serial:x}"[:64])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
          .public_key(ca_key.public_key()).serial_number(serial)
          .not_valid_before(start).not_valid_after(end)
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False,
                                       key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, key_cert_sign=True, crl_sign=True,
                                       encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()),
                         critical=False)
          .sign(ca_key, hashes.SHA256()))

    def signed(common: str, usages: list) -> tuple[bytes, bytes]:
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (x509.CertificateBuilder().subject_name(name(common)).issuer_name(ca_name)
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(start).not_valid_after(end)
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                .add_extension(x509.ExtendedKeyUsage(usages), critical=False)
                .add_extension(x509.SubjectAlternativeName([x509.DNSName(common)]), critical=False)
                .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
                               critical=False)
                .sign(ca_key, hashes.SHA256()))
        return (cert.public_bytes(serialization.Encoding.PEM),
                key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))

    # Workers listen (for the scheduler and each other) and connect (to the
    # scheduler), so their certificate serves both ends; the trainer only connects.
    cluster = signed("genchess-cluster", [ExtendedKeyUsageOID.SERVER_AUTH,
                                          ExtendedKeyUsageOID.CLIENT_AUTH])
    client = signed("genchess-trainer", [ExtendedKeyUsageOID.CLIENT_AUTH])
    files.directory.mkdir(parents=True, exist_ok=True)
    _write(files.ca, ca.public_bytes(serialization.Encoding.PEM), 0o644, overwrite)
    for (cert_path, key_path), (cert, key) in ((files.cluster, cluster), (files.client, client)):
        _write(key_path, key, 0o600, overwrite)
        _write(cert_path, cert, 0o644, overwrite)
    return files


def _write(path: Path, data: bytes, mode: int, overwrite: bool) -> None:
    # The mode is given when the file is created, so a private key is never
    # readable by others, not even for a moment; a replaced file is removed first
    # for the same reason (an existing file keeps its old mode when opened).
    if overwrite:
        path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.chmod(path, mode)            # whatever the umask took away from a certificate


def commands(files: ClusterFiles, host: str = "HOST") -> list[str]:
    """The three commands that start a TLS cluster with these files and train on it."""
    (cluster_cert, cluster_key), (client_cert, client_key) = files.cluster, files.client
    cluster_tls = f"--tls-ca-file {files.ca} --tls-cert {cluster_cert} --tls-key {cluster_key}"
    # dask's HTTP pages (dashboard, metrics, cluster information) are plain HTTP
    # even on a TLS cluster: on the loopback only (an ssh tunnel reaches them).
    return [
        f"dask scheduler {cluster_tls} --dashboard-address 127.0.0.1:8787",
        f"dask worker tls://{host}:8786 {cluster_tls} --nthreads 1 --nworkers N "
        f"--dashboard-address 127.0.0.1:0",
        f"genchess train CONFIG --scheduler tls://{host}:8786 --tls-ca-file {files.ca} "
        f"--tls-cert {client_cert} --tls-key {client_key}",
    ]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="genchess-cluster-certs",
        description="Write the TLS files of a private dask cluster for genchess train: a new CA's "
                    f"certificate ({CA_FILE}), a key pair for the scheduler and every worker "
                    f"({CLUSTER_CERT}, {CLUSTER_KEY}) and one for the trainer ({CLIENT_CERT}, "
                    f"{CLIENT_KEY}); then print the commands that use them. Only holders of a key "
                    "pair can join the cluster or submit work to it (docs/cluster.md).")
    parser.add_argument("directory", metavar="DIR", help="where to write the files (created if missing)")
    parser.add_argument("--days", type=int, default=DAYS,
                        help=f"how long the certificates are valid (default {DAYS})")
    parser.add_argument("--host", default="HOST",
                        help="the scheduler's host name or address, for the printed commands")
    parser.add_argument("--force", action="store_true", help="replace files already in DIR")
    args = parser.parse_args(argv)
    if args.days < 1:
        parser.error("--days must be at least 1")
    try:
        files = make_cluster_files(args.directory, days=args.days, overwrite=args.force)
    except ImportError:
        print('genchess-cluster-certs: needs the cryptography package: pip install "genchess[cluster]"',
              file=sys.stderr)
        return 2
    except FileExistsError as e:
        print(f"genchess-cluster-certs: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"genchess-cluster-certs: {e.filename or args.directory}: {e.strerror}", file=sys.stderr)
        return 2
    scheduler, worker, trainer = commands(files, args.host)
    print(f"Wrote {', '.join(FILES)} to {files.directory} (valid {args.days} days; the keys are "
          f"readable by you only).\n"
          f"Copy {CA_FILE}, {CLUSTER_CERT} and {CLUSTER_KEY} to the scheduler's and every worker's "
          f"machine, and keep {CLIENT_KEY} on the trainer's; anyone with one of the key files can "
          f"run code on the workers.\n\n"
          f"  # on the scheduler's machine ({args.host}):\n  {scheduler}\n"
          f"  # on each worker machine, N = its cores:\n  {worker}\n"
          f"  # where the trainer runs:\n  {trainer}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
